/* SPDX-License-Identifier: MIT */
/*
 * The atomics seam (cyclock/atomic.h) on Relacy, for the model checker's
 * builds: CYCLOCK_ATOMIC_HEADER names this file, and the library's own
 * files, compiled as C++, make every atomic access and fence through
 * Relacy, which chooses, at each load, among the values C11 lets it
 * return, and reports a data race on CYCLOCK_SHARED data read or written
 * unordered with its last write (docs/model.md).
 *
 * Relacy builds its objects inside a run, one per iteration; the
 * library's are static.  So each is a wrapper with room for one, enrolled
 * when the wrapper is constructed and built by the harness's before() (at
 * zero, as C's static storage starts, or at the value a static
 * initialiser gives), destroyed by its after() (model.hpp).
 *
 * Every access first calls cyclock_model::step(), where a harness may
 * stop a thread (it throws cyclock_model::stopped): a writer abandoned at
 * each of its steps.
 */
#ifndef CYCLOCK_MODEL_ATOMIC_HPP
#define CYCLOCK_MODEL_ATOMIC_HPP

#ifndef __cplusplus
#error "the model's atomics are Relacy's: compile as C++"
#endif

#include <new>
#include <type_traits>

#include <relacy/base.hpp>
#include <relacy/thread_local_ctx.hpp>
#include <relacy/context_base.hpp>
/* Relacy's failures, told at once (model.cpp), and not only in the trace
 * of its replay, which says nothing should the replay not fail again. */
namespace cyclock_model {
void relacy_failed(const char *desc, int result);
}
#undef RL_DEBUGBREAK_ON_FAILURE_IMPL
#define RL_DEBUGBREAK_ON_FAILURE_IMPL cyclock_model::relacy_failed(desc, res)
#include <relacy/context.hpp>
#include <relacy/context_base_impl.hpp>
#include <relacy/atomic_fence.hpp>
#include <relacy/atomic.hpp>
#include <relacy/backoff.hpp>
#include <relacy/var.hpp>

namespace cyclock_model {

/* A Relacy object the model builds at each iteration's start. */
class object {
public:
	virtual void build() = 0;
	virtual void destroy() = 0;
	object *next_ = nullptr;

protected:
	~object() = default;
};

void enroll(object *o); /* build it now if an iteration is under way */
void step(rl::debug_info_param info);

struct stopped {}; /* thrown by step() where a harness stops a thread */

/* What Relacy keeps of a T: a pointer (to a function, or const) as an
 * integer, since its trace prints pointers as void *. */
template <typename T, bool = std::is_pointer<T>::value> struct repr {
	typedef T type;
	static T in(T v) { return v; }
	static T out(T v) { return v; }
};
template <typename T> struct repr<T, true> {
	typedef uintptr_t type;
	static uintptr_t in(T v) { return reinterpret_cast<uintptr_t>(v); }
	static T out(uintptr_t v) { return reinterpret_cast<T>(v); }
};

template <typename T> class atomic final : public object {
	typedef typename repr<T>::type R;
	typedef rl::generic_atomic<R, true> impl;
	alignas(impl) unsigned char room_[sizeof(impl)];
	T init_;

public:
	atomic() : init_() { enroll(this); }
	atomic(T v) : init_(v) { enroll(this); } /* a static initialiser's value */
	atomic(const atomic &) = delete;
	atomic &operator=(const atomic &) = delete;

	void build() override
	{
		impl *a = new (room_) impl();

		if (init_ != T())
			a->store(repr<T>::in(init_), rl::mo_relaxed, $);
	}
	void destroy() override { get().~impl(); }
	impl &get() const { return *reinterpret_cast<impl *>(const_cast<unsigned char *>(room_)); }
};

template <typename T> class var final : public object {
	typedef rl::var<typename repr<T>::type> impl;
	alignas(impl) unsigned char room_[sizeof(impl)];

public:
	var() { enroll(this); }
	var(const var &) = delete;
	var &operator=(const var &) = delete;

	void build() override { new (room_) impl(typename repr<T>::type()); }
	void destroy() override { get().~impl(); }
	impl &get() const { return *reinterpret_cast<impl *>(const_cast<unsigned char *>(room_)); }

	/* cyclock_shared(x): a read (a T) or an assignment. */
	class access {
		impl &v_;
		rl::debug_info info_;

	public:
		access(impl &v, rl::debug_info_param info) : v_(v), info_(info) {}
		operator T() const
		{
			step(info_);
			return repr<T>::out(v_(info_).load());
		}
		T operator->() const { return *this; }
		T operator=(T x)
		{
			step(info_);
			v_(info_).store(repr<T>::in(x));
			return x;
		}
	};
	access at(rl::debug_info_param info) const { return access(get(), info); }
};

template <typename T> T load(const atomic<T> *p, rl::memory_order mo, rl::debug_info_param info)
{
	step(info);
	return repr<T>::out(p->get().load(mo, info));
}

template <typename T, typename V>
void store(atomic<T> *p, V v, rl::memory_order mo, rl::debug_info_param info)
{
	step(info);
	p->get().store(repr<T>::in((T)v), mo, info);
}

template <typename T, typename V>
T exchange(atomic<T> *p, V v, rl::memory_order mo, rl::debug_info_param info)
{
	step(info);
	return repr<T>::out(p->get().exchange(repr<T>::in((T)v), mo, info));
}

template <typename T, typename V>
T fetch_add(atomic<T> *p, V v, rl::memory_order mo, rl::debug_info_param info)
{
	step(info);
	return p->get().fetch_add(v, mo, info);
}

template <typename T, typename V>
bool cas(atomic<T> *p, T *expected, V desired, bool weak, rl::memory_order ok,
	 rl::memory_order fail, rl::debug_info_param info)
{
	typename repr<T>::type e = repr<T>::in(*expected);
	bool done;

	step(info);
	if (weak)
		done = p->get().compare_exchange_weak(e, repr<T>::in((T)desired), ok, info, fail, info);
	else
		done = p->get().compare_exchange_strong(e, repr<T>::in((T)desired), ok, info, fail,
						       info);
	*expected = repr<T>::out(e);
	return done;
}

inline void fence(rl::memory_order mo, rl::debug_info_param info)
{
	step(info);
	rl::atomic_thread_fence(mo, info);
}

} /* namespace cyclock_model */

#define CYCLOCK_HAS_ATOMICS 1
#define CYCLOCK_ATOMIC(type) cyclock_model::atomic<type>
#define CYCLOCK_SHARED(type) cyclock_model::var<type>
#define cyclock_shared(x) ((x).at($))
#define CYCLOCK_NOEXCEPT /* the library's C definitions say none, and step() throws */
#define cyclock_cpu_relax() rl::yield(1, $) /* a spin the scheduler can see */

#define CYCLOCK_RELAXED rl::mo_relaxed
#define CYCLOCK_ACQUIRE rl::mo_acquire
#define CYCLOCK_RELEASE rl::mo_release
#define CYCLOCK_ACQ_REL rl::mo_acq_rel
#define CYCLOCK_SEQ_CST rl::mo_seq_cst

#define cyclock_atomic_init(p, v) cyclock_model::store((p), (v), rl::mo_relaxed, $)
#define cyclock_atomic_load(p, mo) cyclock_model::load((p), (mo), $)
#define cyclock_atomic_store(p, v, mo) cyclock_model::store((p), (v), (mo), $)
#define cyclock_atomic_exchange(p, v, mo) cyclock_model::exchange((p), (v), (mo), $)
#define cyclock_atomic_fetch_add(p, v, mo) cyclock_model::fetch_add((p), (v), (mo), $)
#define cyclock_atomic_cas(p, expected, desired, ok, fail) \
	cyclock_model::cas((p), (expected), (desired), false, (ok), (fail), $)
#define cyclock_atomic_cas_weak(p, expected, desired, ok, fail) \
	cyclock_model::cas((p), (expected), (desired), true, (ok), (fail), $)
#define cyclock_atomic_fence(mo) cyclock_model::fence((mo), $)

/* The layouts are the C build's: Relacy's objects have other sizes. */
#define CYCLOCK_LAYOUT_ASSERT(cond, msg) static_assert(true, msg)

#endif /* CYCLOCK_MODEL_ATOMIC_HPP */
