#include "io/k8s_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "base/parse.h"
#include "io/json_reader.h"
#include "io/k8s_command.h"
#include "profiles/profile.h"

namespace drainsim {

using nlohmann::json;

namespace {

// One object of the manifests, and where it is: its file, and the path of the object in
// that file's document ("document 2: ", "items[3].").
struct Object {
  const ManifestFile* file = nullptr;
  std::string prefix;
  YAML::Node node;
};

std::string where(const Object& o, std::string_view path) {
  return fmt::format("{}: {}{}", o.file->name, o.prefix, path);
}

[[noreturn]] void fail(const Object& o, std::string_view path, std::string_view what) {
  throw InputError(fmt::format("{}: {}", where(o, path), what));
}

// yaml-cpp's const operator[] gives a "zombie" node for a missing key, whose type asked
// throws YAML::InvalidNode; only IsDefined() is safe on it. These ask that first.
bool is_map(const YAML::Node& n) { return n.IsDefined() && n.IsMap(); }
bool is_sequence(const YAML::Node& n) { return n.IsDefined() && n.IsSequence(); }
bool is_scalar(const YAML::Node& n) { return n.IsDefined() && n.IsScalar(); }
bool is_null(const YAML::Node& n) { return n.IsDefined() && n.IsNull(); }
// n[key] for a mapping (else a null node): a subscript of a scalar throws in yaml-cpp.
YAML::Node at(const YAML::Node& n, const char* key) { return is_map(n) ? n[key] : YAML::Node(); }

std::string shown(const YAML::Node& n) {
  if (!n.IsDefined() || is_null(n)) return "nothing";
  if (is_scalar(n)) {
    std::string s = n.Scalar();
    if (s.size() > 60) s = s.substr(0, 57) + "...";
    return fmt::format("\"{}\"", s);
  }
  return is_sequence(n) ? "a list" : "a mapping";
}

const char* kind_name(const YAML::Node& n) {
  return is_map(n) ? "mapping" : is_sequence(n) ? "list" : is_scalar(n) ? "scalar" : "nothing";
}

// The mapping at `path` of `parent` (a child of o's node), or an undefined node when absent.
YAML::Node child(const Object& o, const YAML::Node& parent, const char* key,
                 std::string_view path) {
  if (!parent.IsDefined() || is_null(parent)) return YAML::Node(YAML::NodeType::Undefined);
  if (!is_map(parent)) fail(o, path, fmt::format("expected a mapping, got {}", shown(parent)));
  const YAML::Node n = parent[key];
  return n;
}

bool present(const YAML::Node& n) { return n.IsDefined() && !is_null(n); }

std::string scalar(const Object& o, const YAML::Node& n, std::string_view path) {
  if (!is_scalar(n)) fail(o, path, fmt::format("expected a string, got a {}", kind_name(n)));
  return n.Scalar();
}

std::int64_t integer(const Object& o, const YAML::Node& n, std::string_view path, std::int64_t min,
                     std::int64_t max) {
  const std::optional<std::int64_t> v =
      is_scalar(n) ? parse_number<std::int64_t>(n.Scalar()) : std::nullopt;
  if (!v || *v < min || *v > max) {
    fail(o, path, fmt::format("expected an integer from {} to {}, got {}", min, max, shown(n)));
  }
  return *v;
}

std::vector<std::string> strings(const Object& o, const YAML::Node& n, std::string_view path) {
  std::vector<std::string> out;
  if (!present(n)) return out;
  if (!is_sequence(n)) fail(o, path, fmt::format("expected a list of strings, got {}", shown(n)));
  for (std::size_t i = 0; i < n.size(); ++i) {
    out.push_back(scalar(o, n[i], fmt::format("{}[{}]", path, i)));
  }
  return out;
}

// A scenario name from the workload's: letters, digits, '-' and '_'.
std::string scenario_name(const std::string& name) {
  std::string out;
  for (const char c : name) {
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-';
  }
  return out.empty() ? "imported" : out;
}

// YAML is Unicode: a file that is not UTF-8 is refused before yaml-cpp reads it (it would
// pass the bytes on, and the scenario's JSON cannot hold them).
void check_utf8(const ManifestFile& f) {
  try {
    (void)json(f.text).dump();
  } catch (const json::type_error& e) {
    // "invalid UTF-8 byte at index N: 0xXX": N is the byte's offset in the text.
    const std::string_view what = e.what();
    const std::size_t at = what.find("at index ");
    const std::size_t index =
        at == std::string_view::npos
            ? 0
            : parse_number<std::size_t>(what.substr(at + 9, what.find(':', at) - at - 9))
                  .value_or(0);
    const std::size_t bad = std::min(index, f.text.size() - 1);
    const std::size_t line =
        1 + static_cast<std::size_t>(
                std::count(f.text.begin(), f.text.begin() + static_cast<long>(bad), '\n'));
    const std::size_t start = bad == 0 ? std::string::npos : f.text.rfind('\n', bad - 1);
    const std::size_t column = start == std::string::npos ? bad + 1 : bad - start;
    throw InputError(fmt::format("{}: not YAML: line {}, column {}: not UTF-8 text (byte 0x{:02X})",
                                 f.name, line, column, static_cast<unsigned char>(f.text[bad])));
  }
}

// The documents of a YAML stream, each with the number of lines before it. A line that
// starts with "---" (then a space, a tab or its end) begins a document, its marker blanked
// so that columns stay; one that starts with "..." ends one. YAML allows neither inside a
// document's content, so this is the split a parser makes. Each document then goes to
// YAML::Load: yaml-cpp 0.7's LoadAll loops for ever, allocating, on a stray `,` at the top
// level (jbeder/yaml-cpp#1040; fixed upstream in #1319, after the 0.7 Debian 12 ships).
struct DocumentText {
  std::string text;
  std::size_t first_line = 0;
};

std::vector<DocumentText> documents_of(const std::string& text) {
  std::vector<DocumentText> out(1);
  std::size_t line = 0;
  const auto marker = [](std::string_view l, std::string_view m) {
    return l.substr(0, 3) == m && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
  };
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view l(text.data() + at, end - at);
    if (marker(l, "---")) {
      out.push_back({"   " + std::string(l.substr(3)) + "\n", line});
    } else if (marker(l, "...")) {
      out.push_back({"", line + 1});
    } else {
      out.back().text.append(l).push_back('\n');
    }
    at = end + 1;
  }
  return out;
}

// The YAML documents of every file, `List` objects opened into their items.
std::vector<Object> objects_of(const std::vector<ManifestFile>& files) {
  std::vector<Object> out;
  for (const ManifestFile& f : files) {
    check_utf8(f);
    std::vector<YAML::Node> docs;
    for (const DocumentText& d : documents_of(f.text)) {
      try {
        docs.push_back(YAML::Load(d.text));
      } catch (const YAML::DeepRecursion& e) {  // yaml-cpp's guard for its own stack
        throw InputError(
            fmt::format("{}: not YAML drainsim can read: line {}, column {}: nested "
                        "deeper than {} levels",
                        f.name, d.first_line + e.mark.line + 1, e.mark.column + 1, e.depth() - 1));
      } catch (const YAML::Exception& e) {
        throw InputError(fmt::format("{}: not YAML: line {}, column {}: {}", f.name,
                                     d.first_line + e.mark.line + 1, e.mark.column + 1, e.msg));
      }
    }
    std::size_t non_empty = 0;
    for (const YAML::Node& d : docs) non_empty += present(d);
    std::size_t index = 0;
    for (const YAML::Node& d : docs) {
      if (!present(d)) continue;
      ++index;
      Object o{&f, non_empty > 1 ? fmt::format("document {}: ", index) : std::string(), d};
      if (!is_map(d)) {
        throw InputError(fmt::format("{}: {}expected a Kubernetes object (a mapping), got {}",
                                     f.name, o.prefix, shown(d)));
      }
      const YAML::Node kind = d["kind"];
      if (is_scalar(kind) && kind.Scalar().size() >= 4 &&
          kind.Scalar().compare(kind.Scalar().size() - 4, 4, "List") == 0) {
        const YAML::Node items = d["items"];
        if (present(items) && !is_sequence(items)) fail(o, "items", "expected a list of objects");
        for (std::size_t i = 0; present(items) && i < items.size(); ++i) {
          out.push_back({&f, fmt::format("{}items[{}].", o.prefix, i), items[i]});
        }
      } else {
        out.push_back(o);
      }
    }
  }
  return out;
}

std::string kind_of(const Object& o) {
  const YAML::Node k = at(o.node, "kind");
  return is_scalar(k) ? k.Scalar() : std::string();
}

std::string name_of(const Object& o) {
  const YAML::Node n = at(at(o.node, "metadata"), "name");
  return is_scalar(n) ? n.Scalar() : std::string();
}

class Importer {
 public:
  Importer(const std::vector<ManifestFile>& files, const K8sImportOptions& options)
      : options_(options), objects_(objects_of(files)) {
    for (const ManifestFile& f : files) names_ += (names_.empty() ? "" : ", ") + f.name;
  }

  K8sImport run() {
    workload_ = pick_workload();
    const std::string kind = kind_of(workload_);
    out_.workload = fmt::format("{} {} ({})", kind, name_of(workload_), workload_.file->name);
    anchor_workload(kind);
    const YAML::Node spec = child(workload_, workload_.node, "spec", "");
    if (!is_map(spec)) fail(workload_, "spec", "expected the workload's spec, a mapping");
    set("name", scenario_name(name_of(workload_)), "metadata.name", "");
    set("duration", "10m", "", "drainsim's default: ten minutes of arrivals");
    replicas(spec, kind);
    const YAML::Node tmpl = child(workload_, spec, "template", "spec");
    const YAML::Node pod = child(workload_, tmpl, "spec", "spec.template");
    if (!is_map(pod)) fail(workload_, "spec.template.spec", "expected the pod's spec, a mapping");
    grace(pod);
    const int container = pick_container(pod);
    const std::string cpath = fmt::format("spec.template.spec.containers[{}]", container);
    const YAML::Node c = pod["containers"][container];
    out_.anchors.container_index = static_cast<std::size_t>(container);
    const YAML::Node cname = at(c, "name");
    out_.anchors.container = is_scalar(cname) ? cname.Scalar() : std::string();
    worker(c, cpath);
    pre_stop(c, cpath);
    strategy(spec, kind);
    autoscaler(kind);
    workload_defaults();
    return std::move(out_);
  }

 private:
  // Records the field and sets it in the scenario; `path` is the scenario's, `from` the
  // YAML path in the workload (empty: drainsim chose the value, `note` says why).
  void set(const std::string& path, json value, const std::string& from, std::string note) {
    set_field(out_, path, std::move(value), from.empty() ? std::string() : where(workload_, from),
              std::move(note));
  }

  void anchor_workload(const std::string& kind) {
    K8sAnchors& a = out_.anchors;
    a.kind = kind;
    a.name = name_of(workload_);
    const YAML::Node metadata = at(workload_.node, "metadata");
    const YAML::Node ns = at(metadata, "namespace");
    if (is_scalar(ns)) a.namespace_name = ns.Scalar();
    const YAML::Node labels = at(metadata, "labels");
    const YAML::Node managed = at(labels, "app.kubernetes.io/managed-by");
    a.helm =
        present(at(labels, "helm.sh/chart")) || (is_scalar(managed) && managed.Scalar() == "Helm");
  }

  Object pick_workload() {
    std::vector<const Object*> found;
    std::vector<std::string> others;
    for (const Object& o : objects_) {
      const std::string k = kind_of(o);
      if (k == "Deployment" || k == "StatefulSet") {
        if (options_.workload.empty() || name_of(o) == options_.workload) found.push_back(&o);
      } else if (!k.empty() && std::find(others.begin(), others.end(), k) == others.end()) {
        others.push_back(k);
      }
    }
    const std::string& files = names_;
    if (found.empty()) {
      if (!options_.workload.empty()) {
        throw InputError(fmt::format("{}: no Deployment or StatefulSet named \"{}\" (--workload)",
                                     files, options_.workload));
      }
      throw InputError(fmt::format(
          "{}: no Deployment or StatefulSet: expected the worker's workload object{}", files,
          others.empty() ? std::string() : fmt::format(" (found {})", fmt::join(others, " "))));
    }
    if (found.size() > 1) {
      std::string names;
      for (const Object* o : found) {
        names += fmt::format("{}{} {}", names.empty() ? "" : ", ", kind_of(*o), name_of(*o));
      }
      throw InputError(
          fmt::format("{}: {} workloads ({}): pass --workload NAME to choose the worker's", files,
                      found.size(), names));
    }
    return *found.front();
  }

  void replicas(const YAML::Node& spec, const std::string& kind) {
    const YAML::Node r = child(workload_, spec, "replicas", "spec");
    if (present(r)) {
      set("platform.replicas", integer(workload_, r, "spec.replicas", 0, 100000), "spec.replicas",
          "");
    } else {
      set("platform.replicas", 1, "",
          fmt::format("Kubernetes' default: a {} without spec.replicas runs 1 pod (an "
                      "autoscaler may set it; drainsim runs what the manifest says)",
                      kind));
    }
  }

  void grace(const YAML::Node& pod) {
    const YAML::Node g = pod["terminationGracePeriodSeconds"];
    if (present(g)) {
      const std::int64_t s =
          integer(workload_, g, "spec.template.spec.terminationGracePeriodSeconds", 0,
                  std::int64_t{1000000} * 3600);
      set("platform.termination_grace_period", fmt::format("{}s", s),
          "spec.template.spec.terminationGracePeriodSeconds", "");
    } else {
      set("platform.termination_grace_period", "30s", "",
          "Kubernetes' default: terminationGracePeriodSeconds is 30 when the pod does not say");
    }
  }

  int pick_container(const YAML::Node& pod) {
    const std::string path = "spec.template.spec.containers";
    const YAML::Node cs = pod["containers"];
    if (!is_sequence(cs) || cs.size() == 0) {
      fail(workload_, path, fmt::format("expected a list of containers, got {}", shown(cs)));
    }
    std::vector<std::string> names;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const YAML::Node n = at(cs[i], "name");
      names.push_back(is_scalar(n) ? n.Scalar() : fmt::format("[{}]", i));
    }
    if (!options_.container.empty()) {
      const auto it = std::find(names.begin(), names.end(), options_.container);
      if (it == names.end()) {
        fail(workload_, path,
             fmt::format("no container named \"{}\" (--container): the pod has {}",
                         options_.container, fmt::join(names, " ")));
      }
      return static_cast<int>(it - names.begin());
    }
    if (cs.size() > 1) {
      fail(workload_, path,
           fmt::format("{} containers ({}): pass --container NAME to choose the worker's",
                       cs.size(), fmt::join(names, " ")));
    }
    return 0;
  }

  void worker(const YAML::Node& c, const std::string& cpath) {
    if (!is_map(c)) fail(workload_, cpath, "expected a container, a mapping");
    const std::vector<std::string> command = strings(workload_, c["command"], cpath + ".command");
    const std::vector<std::string> args = strings(workload_, c["args"], cpath + ".args");
    std::vector<std::string> argv = command;
    argv.insert(argv.end(), args.begin(), args.end());
    // Where each part was written: the wrapper and the program in `command` unless it is
    // empty, the flags in `args` unless that is.
    const std::string head = command.empty() ? cpath + ".args" : cpath + ".command";
    Launch l;
    try {
      if (!argv.empty()) l = launch_of(argv);
    } catch (const CommandError& e) {
      fail(workload_, head, e.what());
    }
    if (l.init) {
      set("platform.init", true, head,
          fmt::format("{} is PID 1 and forwards signals to the worker", base_name(argv[0])));
    }
    if (!l.shell_note.empty()) set("platform.pid1_shell", l.pid1_shell, head, l.shell_note);

    const std::string program = l.words.empty() ? std::string() : base_name(l.words[0]);
    out_.anchors.command = command;
    out_.anchors.args = args;
    out_.anchors.program = program;
    const bool in_command = std::any_of(command.begin(), command.end(), [&](const std::string& w) {
      return !program.empty() && (base_name(w) == program || w.find(program) != std::string::npos);
    });
    const std::string from = in_command ? cpath + ".command" : cpath + ".args";
    const std::string flags_from = args.empty() ? cpath + ".command" : cpath + ".args";
    const bool airflow = is_airflow_celery_worker(l.words);
    std::string profile = options_.profile;
    if (profile.empty()) {
      if (program == "sidekiq") {
        profile = "sidekiq";
      } else if (program == "celery" || airflow) {
        profile = "celery";
      } else if (argv.empty()) {
        fail(workload_, cpath,
             "no command or args: the image's own command starts the worker, which the "
             "manifest does not show: pass --profile NAME");
      } else {
        const bool node = program == "node" || program == "npm" || program == "npx" ||
                          program == "yarn" || program == "pnpm" || program == "bun";
        fail(workload_, from,
             fmt::format("cannot tell the job system from `{}`{}: pass --profile NAME",
                         fmt::join(argv, " "),
                         node ? " (a Node program: BullMQ, pg-boss, graphile-worker, ...)" : ""));
      }
      set("worker.profile", profile, from,
          airflow ? "the command runs airflow celery worker: Celery's worker under Airflow's "
                    "command line"
                  : fmt::format("the command runs {}", program));
    } else {
      if (find_profile(profile) == nullptr) {
        throw InputError("--profile: " + unknown_profile(profile));
      }
      set("worker.profile", profile, "", "--profile");
    }
    std::vector<CommandSetting> settings;
    try {
      if (program == "sidekiq" && profile.rfind("sidekiq", 0) == 0) {
        settings = sidekiq_settings(l.words);
      } else if (program == "celery" && profile == "celery") {
        settings = celery_settings(l.words);
      } else if (airflow && profile == "celery") {
        settings = airflow_celery_settings(l.words);
      }
    } catch (const CommandError& e) {
      fail(workload_, flags_from, e.what());
    }
    environment(c, cpath, profile, airflow, settings);
    set_all(settings, flags_from);
    if (!has("worker.concurrency")) {
      set("worker.concurrency", find_profile(profile)->worker.concurrency, "",
          fmt::format("the {} profile's default: the {} says nothing drainsim reads of it{}",
                      profile, argv.empty() ? "manifest" : "command",
                      unread_["worker.concurrency"]));
    }
  }

  // What the container's `env` sets, for the settings its job system's deployments
  // conventionally take from there (docs/import.md): each read replaces the command's
  // default in `settings` (a flag on the command line wins). A variable from `valueFrom`
  // (a ConfigMap, a Secret) cannot be read here: its default stays, and its note says so.
  void environment(const YAML::Node& c, const std::string& cpath, const std::string& profile,
                   bool airflow, std::vector<CommandSetting>& settings) {
    struct Read {
      const char* path;
      std::vector<const char*> names;  // the first one the env has is read
      const char* why;
    };
    std::vector<Read> reads;
    if (profile.rfind("sidekiq", 0) == 0) {
      reads = {{"worker.concurrency",
                {"RAILS_MAX_THREADS"},
                "Sidekiq's own: its cli.rb reads it when the command gives no -c"}};
    } else if (airflow && profile == "celery") {
      reads = {{"worker.concurrency",
                {"AIRFLOW__CELERY__WORKER_CONCURRENCY"},
                "Airflow's [celery] worker_concurrency"},
               {"worker.options.prefetch_multiplier",
                {"AIRFLOW__CELERY__WORKER_PREFETCH_MULTIPLIER"},
                "Airflow's [celery] worker_prefetch_multiplier"}};
    } else if (profile == "bullmq") {
      reads = {{"worker.concurrency",
                {"BULLMQ_CONCURRENCY", "WORKER_CONCURRENCY", "CONCURRENCY"},
                "a name BullMQ workers conventionally read into new Worker's concurrency "
                "(BullMQ itself reads no environment)"},
               {"worker.queues",
                {"QUEUE_NAME"},
                "a name BullMQ workers conventionally read for their queue"}};
    } else if (profile == "pg-boss") {
      reads = {{"worker.concurrency",
                {"PGBOSS_CONCURRENCY", "PG_BOSS_CONCURRENCY", "WORKER_CONCURRENCY", "CONCURRENCY"},
                "a name pg-boss workers conventionally read into work()'s concurrency "
                "(localConcurrency; teamSize in 9; pg-boss itself reads no environment)"},
               {"worker.queues",
                {"QUEUE_NAME"},
                "a name pg-boss workers conventionally read for the queue they work()"}};
    }
    const std::string epath = cpath + ".env";
    const YAML::Node env = child(workload_, c, "env", cpath);
    if (present(env) && !is_sequence(env)) {
      fail(workload_, epath, fmt::format("expected a list of variables, got {}", shown(env)));
    }
    // The index of each variable by name; a name given twice: the last one counts.
    std::vector<std::pair<std::string, std::size_t>> vars;
    for (std::size_t i = 0; present(env) && i < env.size(); ++i) {
      const YAML::Node n = at(env[i], "name");
      if (is_scalar(n)) vars.emplace_back(n.Scalar(), i);
    }
    const auto find = [&](const std::string& name) -> std::optional<std::size_t> {
      std::optional<std::size_t> out;
      for (const auto& [n, i] : vars) {
        if (n == name) out = i;
      }
      return out;
    };
    std::vector<std::string> used;
    for (const Read& r : reads) {
      const bool flag = std::any_of(settings.begin(), settings.end(), [&](const CommandSetting& s) {
        return s.path == r.path && s.from_command;
      });
      for (const char* name : r.names) {
        const std::optional<std::size_t> i = find(name);
        if (!i) continue;
        used.emplace_back(name);
        if (flag) break;  // the command line wins
        const std::string vpath = fmt::format("{}[{}]", epath, *i);
        const YAML::Node var = env[*i];
        if (!present(at(var, "value"))) {
          const YAML::Node from = at(var, "valueFrom");
          const char* ref = present(at(from, "configMapKeyRef")) ? "a ConfigMap"
                            : present(at(from, "secretKeyRef"))  ? "a Secret"
                                                                 : "the pod";
          unread_[r.path] +=
              fmt::format("; {} ({}) comes from {} through valueFrom, which drainsim does not read",
                          name, vpath, ref);
          break;
        }
        const std::string text = scalar(workload_, at(var, "value"), vpath + ".value");
        const std::string note = fmt::format("{}={}: {}", name, text, r.why);
        std::erase_if(settings, [&](const CommandSetting& s) { return s.path == r.path; });
        if (std::string_view(r.path) == "worker.queues") {
          if (text.empty()) fail(workload_, vpath + ".value", "expected a queue name, got nothing");
          set("worker.queues", json::array({text}), vpath + ".value", note);
          set("workload.queue", text, vpath + ".value", "the jobs go to the worker's queue");
        } else {
          const bool concurrency = std::string_view(r.path) == "worker.concurrency";
          const std::optional<std::int64_t> v = parse_number<std::int64_t>(text);
          if (!v || *v < (concurrency ? 1 : 0) || *v > 100000) {
            fail(workload_, vpath + ".value",
                 fmt::format("{}: expected an integer from {} to 100000, got \"{}\"", name,
                             concurrency ? 1 : 0, text));
          }
          set(r.path, *v, vpath + ".value", note);
        }
        break;
      }
    }
    // A variable that looks like the worker's concurrency but is none drainsim reads for
    // this system (GitLab's image passes SIDEKIQ_CONCURRENCY to sidekiq itself): said.
    for (const auto& [name, i] : vars) {
      if (name.find("CONCURRENCY") == std::string::npos ||
          std::find(used.begin(), used.end(), name) != used.end()) {
        continue;
      }
      const YAML::Node value = at(env[i], "value");
      unread_["worker.concurrency"] += fmt::format(
          "; the env's {} ({}[{}]{}) is not a setting drainsim reads for {}: if the image "
          "passes it on, --set worker.concurrency={}",
          name, epath, i, is_scalar(value) ? "=" + value.Scalar() : std::string(), profile,
          is_scalar(value) ? value.Scalar() : std::string("N"));
    }
    for (CommandSetting& s : settings) {
      if (!s.from_command) s.note += unread_[s.path];
    }
  }

  bool has(std::string_view path) const {
    return std::any_of(out_.fields.begin(), out_.fields.end(),
                       [&](const ImportedField& f) { return f.path == path; });
  }

  // The settings a job system's command-line reader gives, each at `from`.
  void set_all(const std::vector<CommandSetting>& settings, const std::string& from) {
    for (const CommandSetting& c : settings) {
      set(c.path, c.value, c.from_command ? from : std::string(), c.note);
    }
  }

  // lifecycle.preStop: exec of sleep N (directly or in a shell), of a quiet (kill -TSTP 1,
  // sidekiqctl quiet) then sleep; the sleep action; anything else is explained as none.
  void pre_stop(const YAML::Node& c, const std::string& cpath) {
    const std::string path = cpath + ".lifecycle.preStop";
    const YAML::Node lifecycle = child(workload_, c, "lifecycle", cpath);
    const YAML::Node hook = child(workload_, lifecycle, "preStop", cpath + ".lifecycle");
    if (!present(hook)) {
      set("platform.pre_stop", json{{"kind", "none"}}, "",
          "no lifecycle.preStop: TERM as soon as the pod is deleted");
      return;
    }
    if (!is_map(hook)) fail(workload_, path, "expected a hook, a mapping");
    out_.anchors.pre_stop = present(hook["sleep"])     ? "sleep"
                            : present(hook["httpGet"]) ? "httpGet"
                                                       : "exec";
    if (present(hook["sleep"])) {
      const std::int64_t s =
          integer(workload_, at(hook["sleep"], "seconds"), path + ".sleep.seconds", 0, 1000000);
      set("platform.pre_stop", json{{"kind", "sleep"}, {"duration", fmt::format("{}s", s)}},
          path + ".sleep.seconds", "");
      return;
    }
    if (present(hook["httpGet"])) {
      set("platform.pre_stop", json{{"kind", "none"}}, path + ".httpGet",
          "an httpGet hook: what its endpoint does is the app's, which the manifest does not "
          "say; modelled as returning at once (edit pre_stop if it quiets the worker)");
      return;
    }
    const std::vector<std::string> argv = strings(
        workload_, at(child(workload_, hook, "exec", path), "command"), path + ".exec.command");
    if (argv.empty()) fail(workload_, path, "expected exec.command, sleep or httpGet");
    out_.anchors.pre_stop_exec = argv;
    std::vector<std::string> commands;
    if (argv.size() >= 3 && is_shell(argv[0]) && argv[1] == "-c") {
      commands = commands_of(argv[2]);
    } else {
      commands = {fmt::format("{}", fmt::join(argv, " "))};
    }
    bool quiet = false;
    std::optional<std::int64_t> sleep;
    bool unknown = false;
    for (const std::string& command : commands) {
      const std::vector<std::string> w = shell_words(command);
      if (w.empty()) continue;
      const std::string program = base_name(w[0]);
      if (program == "sleep" && w.size() == 2) {
        std::string n = w[1];
        if (!n.empty() && n.back() == 's') n.pop_back();
        sleep = parse_number<std::int64_t>(n);
        if (!sleep || *sleep < 0) {
          fail(workload_, path + ".exec.command",
               fmt::format("expected `sleep SECONDS`, got `{}`", command));
        }
      } else if (is_quiet(w)) {
        quiet = true;
      } else {
        unknown = true;
      }
    }
    const std::string from = path + ".exec.command";
    if (unknown || (!quiet && !sleep)) {
      set("platform.pre_stop", json{{"kind", "none"}}, from,
          fmt::format("`{}` is not a sleep or a quiet drainsim can read: modelled as returning "
                      "at once (edit pre_stop to say what it does)",
                      fmt::join(argv, " ")));
    } else if (quiet) {
      set("platform.pre_stop",
          json{{"kind", "quiet_then_sleep"}, {"duration", fmt::format("{}s", sleep.value_or(0))}},
          from, "a quiet (TSTP) and then a sleep");
    } else {
      set("platform.pre_stop", json{{"kind", "sleep"}, {"duration", fmt::format("{}s", *sleep)}},
          from, "");
    }
  }

  // The deploy the scenario replays: a rolling restart as the workload's strategy says.
  void strategy(const YAML::Node& spec, const std::string& kind) {
    json event{{"at", "2m"}, {"kind", "rolling_restart"}};
    std::string from, note;
    if (kind == "StatefulSet") {
      const YAML::Node u = child(workload_, spec, "updateStrategy", "spec");
      const YAML::Node type = child(workload_, u, "type", "spec.updateStrategy");
      if (present(type) && scalar(workload_, type, "spec.updateStrategy.type") == "OnDelete") {
        set("events", json::array(), "spec.updateStrategy.type",
            "OnDelete: a new revision replaces no pod until someone deletes it; no deploy "
            "to replay");
        return;
      }
      const YAML::Node mu =
          child(workload_, child(workload_, u, "rollingUpdate", "spec.updateStrategy"),
                "maxUnavailable", "spec.updateStrategy.rollingUpdate");
      event["max_surge"] = 0;
      event["max_unavailable"] =
          present(mu) ? amount(mu, "spec.updateStrategy.rollingUpdate.maxUnavailable") : json(1);
      from =
          present(mu) ? "spec.updateStrategy.rollingUpdate.maxUnavailable" : "spec.updateStrategy";
      note =
          "a StatefulSet replaces its pods one at a time, highest ordinal first (drainsim "
          "replaces the oldest first: the same pods here), and starts no extra one";
    } else {
      const YAML::Node s = child(workload_, spec, "strategy", "spec");
      const YAML::Node type = child(workload_, s, "type", "spec.strategy");
      if (present(type) && scalar(workload_, type, "spec.strategy.type") == "Recreate") {
        event["max_surge"] = 0;
        event["max_unavailable"] = "100%";
        from = "spec.strategy.type";
        note = "Recreate: every old pod is deleted before any new one starts";
      } else {
        const YAML::Node r = child(workload_, s, "rollingUpdate", "spec.strategy");
        const YAML::Node surge = child(workload_, r, "maxSurge", "spec.strategy.rollingUpdate");
        const YAML::Node unavailable =
            child(workload_, r, "maxUnavailable", "spec.strategy.rollingUpdate");
        event["max_surge"] =
            present(surge) ? amount(surge, "spec.strategy.rollingUpdate.maxSurge") : json("25%");
        event["max_unavailable"] =
            present(unavailable) ? amount(unavailable, "spec.strategy.rollingUpdate.maxUnavailable")
                                 : json("25%");
        from = present(surge) || present(unavailable) ? "spec.strategy.rollingUpdate" : "";
        note = present(surge) && present(unavailable)
                   ? ""
                   : "Kubernetes' default of 25 % for what the manifest does not give";
      }
    }
    set("events", json::array({event}), from,
        note.empty() ? "the deploy replayed 2 minutes in, drainsim's choice"
                     : note + "; the deploy replayed 2 minutes in, drainsim's choice");
  }

  // maxSurge, maxUnavailable: an integer, or a percentage "25%".
  json amount(const YAML::Node& n, const std::string& path) {
    const std::string text = scalar(workload_, n, path);
    if (!text.empty() && text.back() == '%') {
      const std::optional<int> p = parse_number<int>(text.substr(0, text.size() - 1));
      if (!p || *p < 0 || *p > 100) {
        fail(workload_, path,
             fmt::format("expected an integer or a percentage from 0% to 100%, "
                         "got {}",
                         shown(n)));
      }
      return fmt::format("{}%", *p);
    }
    return integer(workload_, n, path, 0, 100000);
  }

  // The HorizontalPodAutoscaler whose scaleTargetRef names the workload. With --hpa the
  // scenario starts at its maxReplicas (the most pods it runs, the most a deploy meets) and
  // scales down to its minReplicas once its scale-down stabilization window (default 300 s)
  // has passed after the deploy began; without, the report mentions it.
  void autoscaler(const std::string& kind) {
    std::vector<const Object*> hpas;
    for (const Object& o : objects_) {
      const YAML::Node ref = at(at(o.node, "spec"), "scaleTargetRef");
      const YAML::Node k = at(ref, "kind"), n = at(ref, "name");
      if (kind_of(o) == "HorizontalPodAutoscaler" && is_scalar(k) && k.Scalar() == kind &&
          is_scalar(n) && n.Scalar() == name_of(workload_)) {
        hpas.push_back(&o);
      }
    }
    ImportedField& replicas =
        *std::find_if(out_.fields.begin(), out_.fields.end(),
                      [](const ImportedField& f) { return f.path == "platform.replicas"; });
    if (!options_.hpa) {
      for (const Object* h : hpas) {
        replicas.note += fmt::format(
            "{}the HorizontalPodAutoscaler {} ({}) scales it: pass --hpa to replay its "
            "maxReplicas and a scale-down to its minReplicas",
            replicas.note.empty() ? "" : "; ", name_of(*h), where(*h, "spec.scaleTargetRef"));
      }
      return;
    }
    if (hpas.empty()) {
      throw InputError(fmt::format(
          "{}: no HorizontalPodAutoscaler whose spec.scaleTargetRef names {} {} (--hpa)", names_,
          kind, name_of(workload_)));
    }
    if (hpas.size() > 1) {
      throw InputError(
          fmt::format("{}: {} HorizontalPodAutoscalers name {} {} (--hpa): "
                      "expected one",
                      names_, hpas.size(), kind, name_of(workload_)));
    }
    const Object& h = *hpas.front();
    const YAML::Node spec = at(h.node, "spec");
    const YAML::Node min_node = at(spec, "minReplicas");
    const std::int64_t min =
        present(min_node) ? integer(h, min_node, "spec.minReplicas", 0, 100000) : 1;
    const std::int64_t max = integer(h, at(spec, "maxReplicas"), "spec.maxReplicas",
                                     std::max<std::int64_t>(min, 1), 100000);
    const YAML::Node window_node =
        at(at(at(spec, "behavior"), "scaleDown"), "stabilizationWindowSeconds");
    const std::int64_t window =
        present(window_node)
            ? integer(h, window_node, "spec.behavior.scaleDown.stabilizationWindowSeconds", 0, 3600)
            : 300;
    const std::string was =
        replicas.source.empty() ? std::string("not given") : replicas.value.dump();
    out_.scenario["platform"]["replicas"] = max;
    replicas.value = max;
    replicas.source = where(h, "spec.maxReplicas");
    replicas.note = fmt::format(
        "--hpa: the HorizontalPodAutoscaler's ceiling, the most pods a deploy meets (it "
        "overrides the workload's spec.replicas, {})",
        was);
    hpa_min_ = min;
    const std::string min_from = present(min_node) ? where(h, "spec.minReplicas") : std::string();
    if (min >= max) {
      replicas.note += "; minReplicas is the same: no scale-down to replay";
      return;
    }
    // The deploy is replayed 2 minutes in (strategy()).
    const std::int64_t at_s = 120 + window;
    const json event{{"at", fmt::format("{}s", at_s)}, {"kind", "scale_down"}, {"replicas", min}};
    json& events = out_.scenario["events"];
    if (!events.is_array()) events = json::array();
    events.push_back(event);
    out_.fields.push_back(
        {fmt::format("events[{}]", events.size() - 1), event, min_from,
         fmt::format("--hpa: down to the HorizontalPodAutoscaler's minReplicas{} once its "
                     "scale-down stabilization window ({} s, {}) has passed after the deploy "
                     "began at 2 minutes: the earliest it acts on a load that fell then",
                     present(min_node) ? "" : " (1, Kubernetes' default)", window,
                     present(window_node) ? "spec.behavior.scaleDown.stabilizationWindowSeconds"
                                          : "Kubernetes' default")});
  }

  // The jobs: not in any manifest.
  void workload_defaults() {
    const json& platform = out_.scenario["platform"];
    const json& worker = out_.scenario["worker"];
    // With --hpa, the load it lets the autoscaler scale down to: half of minReplicas' slots.
    const std::int64_t replicas = hpa_min_ ? std::max<std::int64_t>(*hpa_min_, 1)
                                           : platform.value("replicas", std::int64_t{1});
    const std::int64_t slots = replicas * worker.value("concurrency", 10);
    out_.default_slots = slots;
    if (hpa_min_) {
      out_.default_slots_what =
          " of the HorizontalPodAutoscaler's minReplicas (a load it scales down to)";
    }
    // A lognormal of median 1 s and p99 30 s has a mean of 2.9 s: half the slots busy.
    const double rate = std::max(0.1, std::round(slots / 2.9 * 0.5 * 10) / 10);
    set("workload.job_duration", json{{"kind", "lognormal"}, {"median", "1s"}, {"p99", "30s"}}, "",
        "drainsim's default: no durations given (real ones make the answer yours)");
    set("workload.arrival", json{{"kind", "poisson"}, {"rate_per_s", rate}}, "",
        fmt::format("drainsim's default: half the {} slots{} busy on average", slots,
                    out_.default_slots_what));
  }

  const K8sImportOptions& options_;
  std::vector<Object> objects_;
  Object workload_;
  K8sImport out_;
  std::string names_;                          // the files', for messages about them all
  std::map<std::string, std::string> unread_;  // per scenario field: the env not read
  std::optional<std::int64_t> hpa_min_;        // --hpa: its minReplicas
};

}  // namespace

K8sImport import_k8s(const std::vector<ManifestFile>& files, const K8sImportOptions& options) {
  try {
    return Importer(files, options).run();
  } catch (const YAML::Exception& e) {
    // Every node is asked its type before it is read (is_map and its kin), so this is a
    // reader's bug; it is said as bad input rather than crashing the command.
    std::string names;
    for (const ManifestFile& f : files) names += (names.empty() ? "" : ", ") + f.name;
    throw InputError(fmt::format("{}: cannot read the manifest: {}", names, e.what()));
  }
}

namespace {

// A field's value in the report: its JSON, with a long list (an empirical distribution's
// values or buckets) shown by its length.
std::string report_value(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_object()) return v.dump();
  json brief = v;
  std::vector<std::string> shortened;
  for (auto& [key, member] : brief.items()) {
    if (member.is_array() && member.dump().size() > 60) {
      member = fmt::format("[{} entries]", member.size());
      shortened.push_back(member.dump());
    }
  }
  std::string out = brief.dump();
  for (const std::string& s : shortened) {
    const std::size_t at = out.find(s);
    if (at != std::string::npos) out.replace(at, s.size(), s.substr(1, s.size() - 2));
  }
  return out;
}

}  // namespace

void set_field(K8sImport& import, const std::string& path, json value, std::string source,
               std::string note) {
  std::string pointer = "/" + path;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  import.scenario[json::json_pointer(pointer)] = value;
  ImportedField field{path, std::move(value), std::move(source), std::move(note)};
  for (ImportedField& f : import.fields) {
    if (f.path == path) {
      f = std::move(field);
      return;
    }
  }
  import.fields.push_back(std::move(field));
}

std::string import_report(const K8sImport& import) {
  std::string out = fmt::format("imported {}\n", import.workload);
  std::size_t width = 0;
  for (const ImportedField& f : import.fields) width = std::max(width, f.path.size());
  for (const ImportedField& f : import.fields) {
    std::string value = report_value(f.value);
    std::string why = f.source.empty() ? f.note
                      : f.note.empty() ? f.source
                                       : f.source + "; " + f.note;
    if (f.source.empty() && why.empty()) why = "drainsim's default";
    out += fmt::format("  {:<{}}  {}  <- {}\n", f.path, width, value, why);
  }
  return out;
}

}  // namespace drainsim
