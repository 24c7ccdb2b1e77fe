// SPDX-License-Identifier: MIT
// A C++ user of the installed package: cyclock.hpp's steady_clock against
// std::chrono::steady_clock (both CLOCK_MONOTONIC), within a generous 50 ms.
#include <cyclock.hpp>

#include <chrono>
#include <cstdio>

int main()
{
	using namespace std::chrono;
	auto ours = cyclock_chrono::steady_clock::now().time_since_epoch();
	auto std_ = steady_clock::now().time_since_epoch();
	auto diff = duration_cast<microseconds>(std_ - ours).count();

	if (diff < 0 || diff > 50000) {
		std::fprintf(stderr, "consumer_cxx: steady_clock %lld us from std's\n", (long long)diff);
		return 1;
	}
	std::printf("consumer_cxx: steady_clock within %lld us of std::chrono's; %s\n",
		    (long long)diff, cyclock_describe());
	return 0;
}
