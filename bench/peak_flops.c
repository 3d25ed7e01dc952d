/* peak_flops: the measured float32 FMA peak on 1 and 2 threads, make bench's "% of peak". */
/* AVX-512 where the CPU has it, else AVX2.
 * usage: peak_flops [ms per sample = 60] [samples = 3] [threads: 1, 2, or 0 = both]
 *   prints one line: "peak <isa> t1 <GFLOP/s> t2 <GFLOP/s>" (each the median of the samples; 0
 *   for a thread count not measured).
 * peak_flops serve: prints "ready <isa>", then answers each line "<threads> <ms>" on stdin with
 *   "g <GFLOP/s>" of one sample, until end of input (the bench keeps it alive across rounds). */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Independent accumulators: enough to cover FMA latency x 2 pipes, so the loop is
 * throughput-bound. */
#define NACC 12

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((target("avx512f"), noinline)) static float fma_zmm(long iters)
{
	__m512 acc[NACC];
	const __m512 m = _mm512_set1_ps(0.9999999f), a = _mm512_set1_ps(1e-7f);
	for (int j = 0; j < NACC; j++)
		acc[j] = _mm512_set1_ps((float)j);
	for (long i = 0; i < iters; i++) {
#pragma GCC unroll 12
		for (int j = 0; j < NACC; j++)
			acc[j] = _mm512_fmadd_ps(acc[j], m, a);
	}
	__m512 s = acc[0];
	for (int j = 1; j < NACC; j++)
		s = _mm512_add_ps(s, acc[j]);
	return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"), noinline)) static float fma_ymm(long iters)
{
	__m256 acc[NACC];
	const __m256 m = _mm256_set1_ps(0.9999999f), a = _mm256_set1_ps(1e-7f);
	for (int j = 0; j < NACC; j++)
		acc[j] = _mm256_set1_ps((float)j);
	for (long i = 0; i < iters; i++) {
#pragma GCC unroll 12
		for (int j = 0; j < NACC; j++)
			acc[j] = _mm256_fmadd_ps(acc[j], m, a);
	}
	__m256 s = acc[0];
	for (int j = 1; j < NACC; j++)
		s = _mm256_add_ps(s, acc[j]);
	float t[8];
	_mm256_storeu_ps(t, s);
	return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7];
}

static volatile float sink;

/* GFLOP/s of threads threads each running iters iterations, timed from a common start. */
static double run(int threads, int zmm, long iters)
{
	double t0 = 0, t1 = 0;
	int got = 0;
#pragma omp parallel num_threads(threads)
	{
#pragma omp barrier
#pragma omp master
		{
			got = omp_get_num_threads();
			t0 = now_s();
		}
		sink = zmm ? fma_zmm(iters) : fma_ymm(iters);
#pragma omp barrier
#pragma omp master
		t1 = now_s();
	}
	return (double)got * iters * NACC * (zmm ? 16 : 8) * 2.0 / (t1 - t0) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Iterations for about ms milliseconds at gf GFLOP/s per thread. */
static long iters_for(double gf, double ms, int zmm)
{
	long iters = (long)(gf * 1e9 * ms * 1e-3 / (NACC * (zmm ? 16 : 8) * 2.0));
	return iters < 1000 ? 1000 : iters;
}

static int serve(int zmm)
{
	char line[128];
	printf("ready %s\n", zmm ? "avx512" : "avx2");
	fflush(stdout);
	double gf = run(1, zmm, 2000000); /* calibration: one thread's rate */
	while (fgets(line, sizeof line, stdin)) {
		int threads = 0;
		double ms = 0;
		if (sscanf(line, "%d %lf", &threads, &ms) != 2 || threads < 1 || threads > 2 ||
		    ms <= 0) {
			printf("err expected \"<threads 1|2> <ms>\"\n");
		} else {
			double g = run(threads, zmm, iters_for(gf, ms, zmm));
			printf("g %.2f\n", g);
			if (threads == 1 && g > gf)
				gf = g;
		}
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "serve") == 0) {
		__builtin_cpu_init();
		if (__builtin_cpu_supports("avx512f"))
			return serve(1);
		if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
			return serve(0);
		printf("err neither AVX-512 nor AVX2+FMA\n");
		return 1;
	}
	double ms = argc > 1 ? atof(argv[1]) : 60;
	int samples = argc > 2 ? atoi(argv[2]) : 3, only = argc > 3 ? atoi(argv[3]) : 0;
	if (ms <= 0 || samples < 1 || samples > 64 || only < 0 || only > 2) {
		fprintf(stderr,
			"usage: peak_flops [ms per sample] [samples] [threads 1, 2 or 0]\n");
		return 2;
	}
	__builtin_cpu_init();
	int zmm = __builtin_cpu_supports("avx512f");
	if (!zmm && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
		printf("peak none t1 0 t2 0\n");
		return 0;
	}
	/* one iteration is NACC FMAs of 16 (8) lanes: calibrate its count to ms per sample */
	long iters = iters_for(run(1, zmm, 2000000), ms, zmm);
	double med[3] = { 0, 0, 0 };
	for (int th = 1; th <= 2; th++) {
		if (only && th != only)
			continue;
		double v[64];
		run(th, zmm, iters / 10); /* the second thread's start */
		for (int r = 0; r < samples; r++)
			v[r] = run(th, zmm, iters);
		qsort(v, (size_t)samples, sizeof v[0], cmp_double);
		med[th] = v[samples / 2];
	}
	printf("peak %s t1 %.1f t2 %.1f\n", zmm ? "avx512" : "avx2", med[1], med[2]);
	return 0;
}
