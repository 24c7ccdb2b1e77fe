// SPDX-License-Identifier: MIT
/*
 * A server exporting what cyclock did inside it, through prometheus-cpp's
 * pull endpoint (docs/fleet.md, "From inside a server").  Every scrape
 * asks cyclock_get_state(3) afresh, so the counts are this process's since
 * it started: counters, not a one-shot's gauges.  The "work" is a thread
 * that reads the clock as a server would, a little every millisecond.
 *
 *   cyclock_exporter [ADDRESS:PORT [SECONDS]]   (127.0.0.1:9464, 0 = until killed)
 *
 * It prints "listening on PORT" once the endpoint is up (a port of 0 takes a
 * free one), then serves until SECONDS pass or SIGTERM/SIGINT comes.
 */
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>

#include <cyclock.h>
#include <cyclock.hpp>

namespace {

std::atomic<bool> stop{false};

extern "C" void on_signal(int) { stop = true; }

prometheus::MetricFamily family(const char *name, const char *help, prometheus::MetricType type)
{
	prometheus::MetricFamily f;
	f.name = name;
	f.help = help;
	f.type = type;
	return f;
}

prometheus::ClientMetric value(prometheus::MetricType type, double v,
			       std::vector<prometheus::ClientMetric::Label> labels = {})
{
	prometheus::ClientMetric m;
	m.label = std::move(labels);
	if (type == prometheus::MetricType::Counter)
		m.counter.value = v;
	else
		m.gauge.value = v;
	return m;
}

// One sample of a family with no labels.
void add(std::vector<prometheus::MetricFamily> &out, const char *name, const char *help,
	 prometheus::MetricType type, double v)
{
	out.push_back(family(name, help, type));
	out.back().metric.push_back(value(type, v));
}

// cyclock's state as metric families, read at each scrape.
class cyclock_collector : public prometheus::Collectable {
public:
	std::vector<prometheus::MetricFamily> Collect() const override
	{
		using prometheus::MetricType;
		struct cyclock_state st = {};
		std::vector<prometheus::MetricFamily> out;

		st.version = CYCLOCK_STATE_VERSION;
		if (cyclock_get_state(&st) != 0)
			return out;
		const bool counter = st.using_counter == CYCLOCK_USING_COUNTER;

		out.push_back(family("cyclock_trusted",
				     "1 if the clocks read the counter, 0 if the kernel's; reason: why not.",
				     MetricType::Gauge));
		out.back().metric.push_back(
			value(MetricType::Gauge, counter, {{"reason", counter ? "" : st.why}}));
		out.push_back(family("cyclock_source_info",
				     "The counter cyclock reads, and where its frequency came from.",
				     MetricType::Gauge));
		out.back().metric.push_back(value(MetricType::Gauge, 1,
						  {{"source", st.counter},
						   {"frequency_source", st.hz_source}}));
		if (!counter)
			return out;
		out.push_back(family("cyclock_ordered_read_info",
				     "The ordered counter read cyclock chose on this CPU (always 1).",
				     MetricType::Gauge));
		out.back().metric.push_back(value(MetricType::Gauge, 1, {{"read", st.ordered}}));
		add(out, "cyclock_frequency_hertz", "The counter's frequency, as now estimated.",
		    MetricType::Gauge, st.hz);
		add(out, "cyclock_frequency_uncertainty_ratio", "The frequency's uncertainty.",
		    MetricType::Gauge, st.hz_ppm / 1e6);
		add(out, "cyclock_resyncs_total", "Resyncs of the CLOCK_MONOTONIC timeline.",
		    MetricType::Counter, static_cast<double>(st.resyncs));
		add(out, "cyclock_anomalies_total", "Times the counter disagreed with the kernel.",
		    MetricType::Counter, static_cast<double>(st.anomalies));
		add(out, "cyclock_kernel_spells_total", "Spells on the kernel's clock.",
		    MetricType::Counter, static_cast<double>(st.kernel_spells));
		add(out, "cyclock_rate_changes_total",
		    "Changes of the kernel's rate followed on the counter.", MetricType::Counter,
		    static_cast<double>(st.rate_changes));
		out.push_back(family("cyclock_kernel_mode",
				     "1 while cyclock_now() serves the kernel's clock; last_reason: why "
				     "the last spell began.",
				     MetricType::Gauge));
		out.back().metric.push_back(
			value(MetricType::Gauge, st.kernel_mode, {{"last_reason", st.kernel_why}}));
		add(out, "cyclock_resync_interval_seconds", "The resync interval now.",
		    MetricType::Gauge, static_cast<double>(st.interval_ns) / 1e9);
		out.push_back(family("cyclock_agreement_error_seconds",
				     "The clock minus the kernel's at the last resync.",
				     MetricType::Gauge));
		out.back().metric.push_back(value(MetricType::Gauge,
						  static_cast<double>(st.last_err_ns) / 1e9,
						  {{"clock", "monotonic"}}));
		out.back().metric.push_back(value(MetricType::Gauge,
						  static_cast<double>(st.raw_last_err_ns) / 1e9,
						  {{"clock", "monotonic_raw"}}));
		return out;
	}
};

} // namespace

int main(int argc, char **argv)
{
	const std::string address = argc > 1 ? argv[1] : "127.0.0.1:9464";
	const long seconds = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 0;

	if (argc > 3 || seconds < 0) {
		std::fprintf(stderr, "usage: cyclock_exporter [ADDRESS:PORT [SECONDS]]\n");
		return 2;
	}
	std::signal(SIGTERM, on_signal);
	std::signal(SIGINT, on_signal);
	try {
		prometheus::Exposer exposer{address};
		auto collector = std::make_shared<cyclock_collector>();

		exposer.RegisterCollectable(collector);
		std::printf("listening on %d\n", static_cast<int>(exposer.GetListeningPorts().at(0)));
		std::fflush(stdout);

		// The server's work: a clock read per "request".
		auto until = cyclock_chrono::steady_clock::now() + std::chrono::seconds(seconds);
		while (!stop && (seconds == 0 || cyclock_chrono::steady_clock::now() < until))
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	} catch (const std::exception &e) {
		std::fprintf(stderr, "cyclock_exporter: %s: %s\n", address.c_str(), e.what());
		return 1;
	}
	return 0;
}
