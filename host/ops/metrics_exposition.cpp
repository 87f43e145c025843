#include "ops/metrics_exposition.hpp"

#include <prometheus/text_serializer.h>

#include <optional>
#include <sstream>
#include <sys/stat.h>

#include "actions/router.hpp"
#include "ops/action_metrics.hpp"
#include "sys/cgroup_stats.hpp"
#include "sys/system_stats.hpp"
#include "terminal/terminal_registry.hpp"

namespace actionhost::host {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

class Families {
  public:
    void add(const char *name, const char *help, MetricType type, double value, std::vector<ClientMetric::Label> labels = {}) {
        MetricFamily *f = nullptr;
        for (auto &existing : out_)
            if (existing.name == name) f = &existing;
        if (f == nullptr) {
            out_.push_back(MetricFamily{name, help, type, {}});
            f = &out_.back();
        }
        ClientMetric m;
        m.label = std::move(labels);
        if (type == MetricType::Counter) m.counter.value = value;
        else m.gauge.value = value;
        f->metric.push_back(std::move(m));
    }
    template <typename T>
    void add_if(const char *name, const char *help, MetricType type, const std::optional<T> &value) {
        if (value) add(name, help, type, static_cast<double>(*value));
    }
    std::vector<MetricFamily> take() { return std::move(out_); }

  private:
    std::vector<MetricFamily> out_;
};

dev_t device_of(const std::string &path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 ? st.st_dev : 0;
}

}  // namespace

std::string metrics_text(const MetricsSources &s) {
    Families f;
    const ProcessFigures p = own_process_figures();
    f.add("actionhost_host_cpu_seconds_total", "CPU time of the host process (user and system)", MetricType::Counter, p.cpu_seconds);
    f.add("actionhost_host_memory_rss_bytes", "Resident memory of the host process", MetricType::Gauge, static_cast<double>(p.rss_bytes));
    f.add("actionhost_host_memory_virtual_bytes", "Virtual memory of the host process", MetricType::Gauge, static_cast<double>(p.virtual_bytes));
    f.add("actionhost_host_disk_read_bytes_total", "Bytes the host process read from storage", MetricType::Counter, static_cast<double>(p.read_bytes));
    f.add("actionhost_host_disk_written_bytes_total", "Bytes the host process wrote to storage", MetricType::Counter, static_cast<double>(p.write_bytes));
    f.add("actionhost_host_uptime_seconds", "Seconds since the host started", MetricType::Gauge, s.uptime_s);

    const CgroupFigures c = s.cgroups.read();
    f.add_if("actionhost_sandbox_cpu_seconds_total", "CPU time of every process in the host's cgroup (the sandbox's, in a sandbox or container)",
             MetricType::Counter, c.cpu_seconds);
    f.add_if("actionhost_sandbox_memory_bytes", "Memory charged to the host's cgroup", MetricType::Gauge, c.memory_bytes);
    f.add_if("actionhost_sandbox_memory_limit_bytes", "The memory limit of the host's cgroup (absent when unlimited)", MetricType::Gauge,
             c.memory_limit_bytes);
    f.add_if("actionhost_sandbox_pids", "Tasks in the host's cgroup", MetricType::Gauge, c.pids);
    f.add_if("actionhost_sandbox_pids_limit", "The task limit of the host's cgroup (absent when unlimited)", MetricType::Gauge, c.pids_limit);
    // The root and the working directory (where the agent writes), once when they share a filesystem.
    std::vector<std::string> paths{"/"};
    if (!s.working_dir.empty() && device_of(s.working_dir) != device_of("/")) paths.push_back(s.working_dir);
    for (const auto &path : paths) {
        const auto d = filesystem_figures(path);
        if (!d) continue;
        f.add("actionhost_sandbox_disk_size_bytes", "Size of the filesystem holding the path", MetricType::Gauge,
              static_cast<double>(d->total_bytes), {{"path", path}});
        f.add("actionhost_sandbox_disk_used_bytes", "Bytes used on the filesystem holding the path", MetricType::Gauge,
              static_cast<double>(d->used_bytes), {{"path", path}});
        f.add("actionhost_sandbox_disk_free_bytes", "Bytes available to unprivileged users on the filesystem holding the path",
              MetricType::Gauge, static_cast<double>(d->free_bytes), {{"path", path}});
    }

    f.add("actionhost_sessions", "Sessions that have run an action on this host", MetricType::Gauge,
          static_cast<double>(s.router.session_count()));
    if (s.terminals != nullptr)
        f.add("actionhost_terminals_open", "Terminals open on GET /terminal", MetricType::Gauge, static_cast<double>(s.terminals->list().size()));
    const auto loaded = s.router.loaded_names(), refused = s.router.refused_names();
    f.add("actionhost_plugins_loaded", "Plugins loaded", MetricType::Gauge, static_cast<double>(loaded.size()));
    f.add("actionhost_plugin_load_failures", "Plugins whose load was refused (each is tried once)", MetricType::Gauge,
          static_cast<double>(refused.size()));
    for (const auto &name : loaded)
        f.add("actionhost_plugin_loaded", "1 for each loaded plugin", MetricType::Gauge, 1, {{"plugin", name}});
    for (const auto &name : refused)
        f.add("actionhost_plugin_load_failed", "1 for each plugin whose load was refused", MetricType::Gauge, 1, {{"plugin", name}});

    std::vector<MetricFamily> families = s.actions.collect();
    for (auto &family : f.take()) families.push_back(std::move(family));
    std::ostringstream out;
    prometheus::TextSerializer().Serialize(out, families);
    return out.str();
}

}  // namespace actionhost::host
