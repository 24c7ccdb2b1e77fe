/* SPDX-License-Identifier: MIT */
/*
 * What the hosted layer asks of the world: the machine (world.c, sim.c
 * in the simulation; CPUID's cache, the record, the ordered reads, the
 * warp check) and the process (platform.c).  Part of internal.h, which includes it after
 * the shared state: include internal.h, not this.
 */
#ifndef CYCLOCK_LINUX_MACHINE_H
#define CYCLOCK_LINUX_MACHINE_H

/* world.c (sim.c in the simulation): the machine; task.c: the process's
 * id and its tasks; platform.c: the rest of the process (stderr,
 * environment, signal mask, threads). */
typedef int cyclock__gettime_fn(clockid_t id, struct timespec *ts);
#ifdef CYCLOCK_SIM
int cyclock__kernel_gettime(clockid_t id, struct timespec *ts);
#else
cyclock__gettime_fn *cyclock__vdso_gettime_of(cyclock__gettime_fn *next);
/* The vDSO's clock_gettime() to call directly, or NULL: set at load (by
 * next.c, or the preload), kept on cyclock__mono's last line, which a
 * read past the horizon touches anyway (cyclock/timeline.h). */
static inline cyclock__gettime_fn *cyclock__vdso_gettime(void)
{
	return (cyclock__gettime_fn *)cyclock_atomic_load(
		&cyclock__tl_of(0)->kernel_gettime, CYCLOCK_RELAXED);
}

static inline void cyclock__vdso_gettime_set(cyclock__gettime_fn *fn)
{
	cyclock_atomic_store(&cyclock__tl_of(0)->kernel_gettime, (uintptr_t)fn, CYCLOCK_RELAXED);
}

/* cyclock's preload's (src/preload/preload.c): what to call for the
 * kernel's clock in place of @fn, the clock_gettime() a caller would
 * reach; asked by next.c, where the process has the preload. */
cyclock__gettime_fn *cyclock_preload_next_gettime(cyclock__gettime_fn *fn);
/* next.c, or the preload's own: the clock_gettime() to call otherwise. */
int cyclock__next_gettime(clockid_t id, struct timespec *ts);
/* Inline: a read with no counter in use is this and little more; 0, or
 * -errno from the vDSO and -1 from the next. */
static inline int cyclock__kernel_gettime(clockid_t id, struct timespec *ts)
{
	cyclock__gettime_fn *vdso = cyclock__vdso_gettime();

	return vdso ? vdso(id, ts) : cyclock__next_gettime(id, ts);
}
#endif
uint32_t cyclock__pid(void);             /* cached at load and at fork(); 0 before */
uint32_t cyclock__pid_fresh(void);     /* the kernel's answer, cached: a system call */
uint32_t cyclock__tid(void);             /* the calling task's thread id: a system call */
struct stat;
struct statfs;
int cyclock__sys_open(const char *path, int flags, unsigned int mode); /* and the rest: */
ssize_t cyclock__sys_read(int fd, void *buf, size_t n); /* syscall()'s, not libc's */
void cyclock__sys_close(int fd);                        /* functions (world.c) */
int cyclock__sys_fstat(int fd, struct stat *st);
int cyclock__sys_fstatfs(int fd, struct statfs *fs);
/* Task @tid as the kernel knows it: an identity no other task can have
 * while anyone looks (its pidfs inode, else its start time), 0 if none
 * can be had; and whether task @tid of that identity is gone (exited, or
 * the id is another task's now).  System calls: explicit calls only. */
uint64_t cyclock__task_ident(uint32_t tid);
bool cyclock__task_gone(uint32_t tid, uint64_t ident);
void cyclock__at_load(void); /* what stderr is (say() writes only there) */
void cyclock__say(const char *msg, size_t n);
void cyclock__say_once(CYCLOCK_ATOMIC(uint32_t) *said, const char *msg, size_t n);
static inline uint64_t cyclock__kernel_ns(clockid_t id)
{
	struct timespec ts;

	if (cyclock__kernel_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}
int cyclock__env_source(void);   /* read once, at load, and remembered */
int cyclock__env_ordered(void);
void cyclock__env_ordered_at_load(void); /* says at load if it names a read that fails here */
void cyclock__say_ordered_refused(uint32_t how, const char *why);
/* cpuid.c (sim.c: none): CPUID's cache. */
bool cyclock__cpuid_ahead(void);       /* one more leaf into the cache; false if none left */
bool cyclock__cpuid_pending(void);     /* a leaf is left to ask */
/* CPUID's answers, for the machine's record: export is false unless every
 * leaf was asked, import unless they are this build's leaves (none but
 * on x86-64). */
#define CYCLOCK__CPUID_MAX 16
struct cyclock__cpuid_answer {
	uint32_t leaf, r[4];
};
bool cyclock__cpuid_export(struct cyclock__cpuid_answer *a, uint32_t *n);
bool cyclock__cpuid_import(const struct cyclock__cpuid_answer *a, uint32_t n);
/* record.c (sim.c: no record): the machine's answers kept for this boot;
 * load (at load) is true if a record is there, whole, of this boot and
 * machine; take (no system call), asking the CPU @asks leaves at most (a
 * read's one), is CYCLOCK__TAKE_YES if what this CPU says agrees, and then
 * they fill CPUID's cache and the ordered reads' costs, _NO if it does not
 * (or there is none), _LATER if a leaf is left to ask; save, where a
 * record can be written, asks CPUID what the checks left unasked and
 * times the ordered reads, then writes them. */
enum { CYCLOCK__TAKE_NO, CYCLOCK__TAKE_YES, CYCLOCK__TAKE_LATER };
bool cyclock__record_load(void);
int cyclock__record_take(unsigned int asks);
/* the kernel's clocksource as the record read it, if less than a second
 * ago; save writes @clocksource, read just now, with the rest */
bool cyclock__record_clocksource(char *name, size_t len);
void cyclock__record_save(const char *clocksource);
unsigned int cyclock__cpuid_asked(void); /* CPUID instructions run so far */
bool cyclock__counter_invariant(void);
void cyclock__counter_hz_at_load(void); /* a file that states the frequency, read at load */
uint64_t cyclock__counter_hz_hint(const char **how);
bool cyclock__kernel_clocksource(char *name, size_t len);
unsigned int cyclock__allowed_cpus(int cpu[2]);
int cyclock__thread_start(pthread_t *t, bool detached, void *(*fn)(void *), void *arg);

/* What cyclock__shield() held off, for cyclock__unshield() to give back. */
struct cyclock__shield {
	sigset_t mask;
	int cancel_state, cancel_type;
};
void cyclock__shield(struct cyclock__shield *s);
void cyclock__unshield(const struct cyclock__shield *s);

/* ordered.c: which ordered read (timeline.how); @hz 0: the one that needs
 * no asking, or the one CYCLOCK_ORDERED_READ names. */
void cyclock__ordered_choose(double hz);
bool cyclock__ordered_time(void); /* the reads timed, once; false if done already */
bool cyclock__ordered_timed(void); /* done already (or the machine's record had it) */
bool cyclock__ordered_export(uint64_t best[CYCLOCK_ARCH_ORDERED_HOWS]); /* false: not timed */
void cyclock__ordered_import(const uint64_t best[CYCLOCK_ARCH_ORDERED_HOWS]);

/* The ordered read the readers use (both timelines have the same), for
 * the writer's and the slow path's reads. */
static inline uint64_t cyclock__ordered(void)
{
	return cyclock__counter_ordered(&cyclock__mono);
}

/* warp.c */
int64_t cyclock__warp_check(const int cpu[2], uint64_t budget_ns, uint64_t *comparisons);

#endif /* CYCLOCK_LINUX_MACHINE_H */
