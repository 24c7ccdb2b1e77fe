/* SPDX-License-Identifier: MIT */
/* Statistics of a figure's repetitions: order statistics and the spread
 * that says whether the machine was quiet enough to believe them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double bench_quantile(const double *v, size_t n, double p)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = (size_t)ceil(p * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

void bench_stats_of(double *v, size_t n, struct bench_stats *st)
{
	double sum = 0, sq = 0;

	memset(st, 0, sizeof(*st));
	st->n = n;
	if (n == 0)
		return;
	bench_sort(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	st->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - st->mean) * (v[i] - st->mean);
	st->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	st->min = v[0];
	st->max = v[n - 1];
	/* The median of an even count is the mean of the middle two, as
	 * Google Benchmark's median aggregate is. */
	st->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	st->p90 = bench_quantile(v, n, 0.90);
	st->p99 = bench_quantile(v, n, 0.99);
	st->spread = st->median > 0 ? (st->p90 - st->min) / st->median : 0;
}
