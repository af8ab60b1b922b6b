#include "io/k8s_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "base/parse.h"
#include "io/json_reader.h"
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

std::string base_name(const std::string& word) {
  const std::size_t slash = word.rfind('/');
  return slash == std::string::npos ? word : word.substr(slash + 1);
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

// How the container starts its worker: the words of its job system's command, with what
// wraps it taken off.
struct Launch {
  std::vector<std::string> words;  // "sidekiq", "-c", "10", ...
  bool pid1_shell = false;         // a shell stays PID 1 and does not forward TERM
  bool init = false;               // tini or dumb-init is PID 1 and forwards signals
  std::string shell_note;          // how the shell was read
};

// Simple commands of a shell script, split at ';', '&&', '||', '|', '&' and newlines
// outside quotes. Rough, as a reader of a script must be: enough for a wrapper's line.
std::vector<std::string> commands_of(const std::string& script) {
  std::vector<std::string> out(1);
  char quote = 0;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      out.back() += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out.back() += c;
    } else if (c == ';' || c == '\n' || c == '&' || c == '|') {
      if (i + 1 < script.size() && (script[i + 1] == '&' || script[i + 1] == '|')) ++i;
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  std::erase_if(out, [](const std::string& s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  });
  return out;
}

// `kill -TSTP 1` (or -SIGTSTP, -20, -s TSTP) and `sidekiqctl quiet`: the worker told to
// stop fetching.
bool is_quiet(const std::vector<std::string>& w) {
  const std::string program = base_name(w[0]);
  if (program == "sidekiqctl") return w.size() >= 2 && w[1] == "quiet";
  if (program != "kill" || w.size() < 3) return false;
  const auto tstp = [](const std::string& s) { return s == "TSTP" || s == "SIGTSTP" || s == "20"; };
  return (w[1].size() > 1 && w[1][0] == '-' && tstp(w[1].substr(1))) ||
         (w[1] == "-s" && w.size() >= 4 && tstp(w[2]));
}

// The value of the flag at w[i] when it is `short_name` or `long_name`: "-c 10" (i moves
// past the value), "-c10", "--concurrency 10", "--concurrency=10". `short_name` may be
// empty (a flag with no short form).
std::optional<std::string> flag_value(const std::vector<std::string>& w, std::size_t& i,
                                      std::string_view short_name, std::string_view long_name) {
  const std::string& a = w[i];
  if ((a == long_name || (!short_name.empty() && a == short_name)) && i + 1 < w.size()) {
    return w[++i];
  }
  if (a.size() > long_name.size() && a.compare(0, long_name.size(), long_name) == 0 &&
      a[long_name.size()] == '=') {
    return a.substr(long_name.size() + 1);
  }
  if (!short_name.empty() && a.size() > 2 && a.compare(0, 2, short_name) == 0 && a[1] != '-') {
    return a.substr(2);
  }
  return std::nullopt;
}

bool is_shell(const std::string& word) {
  const std::string b = base_name(word);
  return b == "sh" || b == "bash" || b == "ash" || b == "dash" || b == "zsh";
}

Launch launch_of(const Object& o, const std::vector<std::string>& argv, const std::string& path) {
  Launch l;
  std::vector<std::string> words = argv;
  if (!words.empty() && (base_name(words[0]) == "tini" || base_name(words[0]) == "dumb-init")) {
    l.init = true;
    words.erase(words.begin());
    while (!words.empty() && words[0].size() > 1 && words[0][0] == '-') {
      const bool end = words[0] == "--";
      words.erase(words.begin());
      if (end) break;
    }
  }
  if (words.size() >= 3 && is_shell(words[0]) && words[1] == "-c") {
    const std::vector<std::string> commands = commands_of(words[2]);
    if (commands.empty()) fail(o, path, "expected a command after -c, got an empty script");
    bool ok = true;
    std::vector<std::string> last = shell_words(commands.back(), &ok);
    if (!ok)
      fail(o, path,
           fmt::format("expected a shell script, got an unclosed quote in {}", commands.back()));
    if (!last.empty() && last[0] == "exec") {
      last.erase(last.begin());
      l.shell_note = fmt::format("{} -c ending in `exec`: the worker replaces the shell as PID 1",
                                 base_name(words[0]));
    } else {
      l.pid1_shell = !l.init;
      l.shell_note = commands.size() > 1
                         ? fmt::format(
                               "{} -c runs {} commands and the worker last, without `exec`: the "
                               "shell stays PID 1 and does not forward TERM",
                               base_name(words[0]), commands.size())
                         : fmt::format(
                               "{} -c without `exec`: the shell is PID 1 and does not forward TERM "
                               "(bash and dash 0.5.11+ exec a lone simple command themselves: "
                               "write `exec` to say so)",
                               base_name(words[0]));
      if (l.init) l.shell_note += "; the init before it forwards signals to the shell only";
    }
    words = last;
  }
  if (!words.empty() && base_name(words[0]) == "bundle" && words.size() > 1 && words[1] == "exec") {
    words.erase(words.begin(), words.begin() + 2);
  }
  if (words.size() > 2 && (words[0] == "python" || words[0] == "python3") && words[1] == "-m") {
    words.erase(words.begin(), words.begin() + 2);
  }
  l.words = words;
  return l;
}

}  // namespace

std::vector<std::string> shell_words(const std::string& line, bool* ok) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
    } else if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < line.size() &&
                 std::string_view("\"\\$`").find(line[i + 1]) != std::string_view::npos) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(std::exchange(word, {}));
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  if (ok != nullptr) *ok = quote == 0;
  return out;
}

namespace {

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
    worker(c, cpath);
    pre_stop(c, cpath);
    strategy(spec, kind);
    workload_defaults();
    return std::move(out_);
  }

 private:
  // Records the field and sets it in the scenario; `path` is the scenario's, `from` the
  // YAML path in the workload (empty: drainsim chose the value, `note` says why).
  void set(const std::string& path, json value, const std::string& from, std::string note) {
    json* at = &out_.scenario;
    std::string_view rest = path;
    while (true) {
      const std::size_t dot = rest.find('.');
      json& next = (*at)[std::string(rest.substr(0, dot))];
      if (dot == std::string_view::npos) {
        next = value;
        break;
      }
      at = &next;
      rest.remove_prefix(dot + 1);
    }
    out_.fields.push_back({path, std::move(value),
                           from.empty() ? std::string() : where(workload_, from), std::move(note)});
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
    const Launch l = argv.empty() ? Launch{} : launch_of(workload_, argv, head);
    if (l.init) {
      set("platform.init", true, head,
          fmt::format("{} is PID 1 and forwards signals to the worker", base_name(argv[0])));
    }
    if (!l.shell_note.empty()) set("platform.pid1_shell", l.pid1_shell, head, l.shell_note);

    const std::string program = l.words.empty() ? std::string() : base_name(l.words[0]);
    const bool in_command = std::any_of(command.begin(), command.end(), [&](const std::string& w) {
      return !program.empty() && (base_name(w) == program || w.find(program) != std::string::npos);
    });
    const std::string from = in_command ? cpath + ".command" : cpath + ".args";
    const std::string flags_from = args.empty() ? cpath + ".command" : cpath + ".args";
    std::string profile = options_.profile;
    if (profile.empty()) {
      if (program == "sidekiq") {
        profile = "sidekiq";
      } else if (program == "celery") {
        profile = "celery";
      } else if (argv.empty()) {
        fail(workload_, cpath,
             "no command or args: the image's own command starts the worker, which the "
             "manifest does not show: pass --profile NAME");
      } else {
        fail(workload_, from,
             fmt::format("cannot tell the job system from `{}`: pass --profile NAME",
                         fmt::join(argv, " ")));
      }
      set("worker.profile", profile, from, fmt::format("the command runs {}", program));
    } else {
      if (find_profile(profile) == nullptr) {
        throw InputError("--profile: " + unknown_profile(profile));
      }
      set("worker.profile", profile, "", "--profile");
    }
    if (program == "sidekiq" && profile.rfind("sidekiq", 0) == 0) {
      sidekiq_flags(l.words, flags_from);
    }
    if (program == "celery" && profile == "celery") celery_flags(l.words, flags_from);
    if (!has("worker.concurrency")) {
      set("worker.concurrency", find_profile(profile)->worker.concurrency, "",
          fmt::format("the {} profile's default: the command says nothing drainsim reads of it",
                      profile));
    }
  }

  bool has(std::string_view path) const {
    return std::any_of(out_.fields.begin(), out_.fields.end(),
                       [&](const ImportedField& f) { return f.path == path; });
  }

  // Sidekiq's cli.rb: -c/--concurrency, -t/--timeout (whole seconds), -q/--queue NAME[,W].
  void sidekiq_flags(const std::vector<std::string>& w, const std::string& from) {
    std::vector<std::string> queues;
    bool concurrency = false, timeout = false;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (const auto c = flag_value(w, i, "-c", "--concurrency")) {
        set("worker.concurrency", flag_int(*c, from, "-c", 1, 100000), from,
            fmt::format("sidekiq -c {}", *c));
        concurrency = true;
      } else if (const auto t = flag_value(w, i, "-t", "--timeout")) {
        set("worker.grace_period", fmt::format("{}s", flag_int(*t, from, "-t", 1, 1000000)), from,
            fmt::format("sidekiq -t {}: its shutdown timeout, whole seconds", *t));
        timeout = true;
      } else if (const auto q = flag_value(w, i, "-q", "--queue")) {
        const std::string name = q->substr(0, q->find(','));
        if (std::find(queues.begin(), queues.end(), name) == queues.end()) queues.push_back(name);
      } else if (const auto file = flag_value(w, i, "-C", "--config")) {
        config_ = *file;
      }
    }
    const std::string config = config_.empty()
                                   ? ""
                                   : fmt::format(
                                         " (its -C {} is not read: give -c and -t on the "
                                         "command line to have them here)",
                                         config_);
    if (!concurrency) {
      set("worker.concurrency", 5, "", "Sidekiq's default, as the command gives no -c" + config);
    }
    if (!timeout) {
      set("worker.grace_period", "25s", "",
          "Sidekiq's default, as the command gives no -t" + config);
    }
    if (!queues.empty()) {
      set("worker.queues", queues, from,
          "sidekiq -q in the order given; their weights are not modelled, the first is "
          "fetched first");
      set("workload.queue", queues.front(), from, "the jobs go to the worker's first queue");
    }
  }

  // Celery's worker: -c/--concurrency, --prefetch-multiplier, -Q/--queues a,b.
  void celery_flags(const std::vector<std::string>& w, const std::string& from) {
    bool concurrency = false;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (const auto c = flag_value(w, i, "-c", "--concurrency")) {
        set("worker.concurrency", flag_int(*c, from, "--concurrency", 1, 100000), from,
            fmt::format("celery worker --concurrency {}", *c));
        concurrency = true;
      } else if (const auto m = flag_value(w, i, "", "--prefetch-multiplier")) {
        set("worker.options.prefetch_multiplier",
            flag_int(*m, from, "--prefetch-multiplier", 0, 100000), from,
            fmt::format("celery worker --prefetch-multiplier {}", *m));
      } else if (const auto q = flag_value(w, i, "-Q", "--queues")) {
        std::vector<std::string> queues;
        std::string_view rest = *q;
        while (!rest.empty()) {
          const std::size_t comma = rest.find(',');
          if (comma != 0) queues.emplace_back(rest.substr(0, comma));
          rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        }
        if (!queues.empty()) {
          set("worker.queues", queues, from, fmt::format("celery worker -Q {}", *q));
          set("workload.queue", queues.front(), from, "the jobs go to the worker's first queue");
        }
      }
    }
    if (!concurrency) {
      set("worker.concurrency", 10, "",
          "drainsim's default: the command gives no --concurrency, and Celery's is the node's "
          "CPU count, which the manifest does not say");
    }
  }

  std::int64_t flag_int(const std::string& v, const std::string& from, std::string_view flag,
                        std::int64_t min, std::int64_t max) {
    const std::optional<std::int64_t> n = parse_number<std::int64_t>(v);
    if (!n || *n < min || *n > max) {
      fail(workload_, from,
           fmt::format("{} {}: expected an integer from {} to {}", flag, v, min, max));
    }
    return *n;
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

  // The jobs: not in any manifest.
  void workload_defaults() {
    const json& platform = out_.scenario["platform"];
    const json& worker = out_.scenario["worker"];
    const std::int64_t slots = platform.value("replicas", 1) * worker.value("concurrency", 10);
    // A lognormal of median 1 s and p99 30 s has a mean of 2.9 s: half the slots busy.
    const double rate = std::max(0.1, std::round(slots / 2.9 * 0.5 * 10) / 10);
    set("workload.job_duration", json{{"kind", "lognormal"}, {"median", "1s"}, {"p99", "30s"}}, "",
        "drainsim's default: no durations given (real ones make the answer yours)");
    set("workload.arrival", json{{"kind", "poisson"}, {"rate_per_s", rate}}, "",
        fmt::format("drainsim's default: half the {} slots busy on average", slots));
  }

  const K8sImportOptions& options_;
  std::vector<Object> objects_;
  Object workload_;
  K8sImport out_;
  std::string config_;
  std::string names_;  // the files', for messages about them all
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
