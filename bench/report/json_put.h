/* SPDX-License-Identifier: MIT */
/*
 * Building JSON with jansson, for every writer of it (report/json.c, and
 * the tool's info_json.c, block_json.c, status_json.c): set a key, an
 * integer, a string that is valid UTF-8 whatever the machine's text is, a
 * real that is finite or left out.
 */
#ifndef CYCLOCK_BENCH_JSON_PUT_H
#define CYCLOCK_BENCH_JSON_PUT_H

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sets @key of @o to @v (which it takes); -1 when @v is NULL or out of
 * memory, so that callers can collect failures with |=. */
static inline int bench_json_put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) ? -1 : 0;
}

/* A JSON string of @s (NULL: ""). Text from the machine (a CPU model, a
 * kernel version) is not promised to be UTF-8, and JSON must be: bytes
 * beyond ASCII become '?' when @s is not valid UTF-8. */
static inline json_t *bench_json_str(const char *s)
{
	json_t *v = json_string(s ? s : "");
	char *copy;

	if (v || !s)
		return v;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

/* An integer. */
static inline int bench_json_put_int(json_t *o, const char *key, long long v)
{
	return bench_json_put(o, key, json_integer(v));
}

/* JSON has no NaN or infinity: a figure that is not finite is left out. */
static inline int bench_json_put_real(json_t *o, const char *key, double v)
{
	return isfinite(v) ? bench_json_put(o, key, json_real(v)) : 0;
}

#endif /* CYCLOCK_BENCH_JSON_PUT_H */
