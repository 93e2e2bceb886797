// cxxpool.cc - a C++ program with std::thread, std::mutex and
// std::condition_variable (which go through pthread_create,
// pthread_mutex_lock/unlock and pthread_cond_wait/signal/broadcast): W
// threads integrate a function over N chunks taken from a shared counter
// (dynamic scheduling); the last thread to finish wakes the main thread,
// which waits on a condition variable, then joins them all.
//
//   cxxpool [N [WORK [W]]]   N = 300 chunks, WORK = 8000 us per chunk on
//                            average (chunk k costs WORK * (1 + k%4)/2.5),
//                            W = 4 threads
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

static long arg(int argc, char **argv, int i, long dflt)
{
	if (argc <= i)
		return dflt;
	char *end;
	long v = std::strtol(argv[i], &end, 10);
	if (*end || v <= 0) {
		std::fprintf(stderr, "%s: argument %d must be a positive integer\n", argv[0], i);
		std::exit(1);
	}
	return v;
}

static double integrate(long k, long units)
{
	// ~1 us of floating-point work per unit
	double x = 0, h = 1e-3 / (double)(k + 1);
	for (long i = 0; i < units * 120; i++)
		x += h / (1.0 + (double)i * h * (double)i * h);
	return x;
}

int main(int argc, char **argv)
{
	long n = arg(argc, argv, 1, 300), work = arg(argc, argv, 2, 8000);
	long w = arg(argc, argv, 3, 4);
	std::mutex mx;
	std::condition_variable all_done;
	long next = 0, finished = 0, locks = 0, cwaits = 0, signals = 0;
	double sum = 0;
	std::vector<std::thread> pool;
	for (long t = 0; t < w; t++)
		pool.emplace_back([&]() {
			for (;;) {
				long k;
				{
					std::lock_guard<std::mutex> g(mx);
					locks++;
					k = next++;
				}
				if (k >= n)
					break;
				double v = integrate(k, work * (1 + k % 4) * 2 / 5);
				std::lock_guard<std::mutex> g(mx);
				locks++;
				sum += v;
			}
			std::lock_guard<std::mutex> g(mx);
			locks++;
			if (++finished == w) {
				signals++;
				all_done.notify_one();
			}
		});
	{
		std::unique_lock<std::mutex> g(mx);
		locks++;
		while (finished < w) {
			all_done.wait(g);
			cwaits++;
		}
	}
	for (auto &t : pool)
		t.join();
	std::printf("cxxpool: %ld chunks, %ld threads, sum %.6f\n", n, w, sum);
	std::printf("counts threads %ld create %ld join %ld lock %ld unlock %ld", w + 1, w, w,
	            locks, locks);
	if (cwaits)
		std::printf(" cwait %ld", cwaits);
	std::printf(" signal %ld\n", signals);
	return 0;
}
