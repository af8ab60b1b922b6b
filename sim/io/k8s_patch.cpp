#include "io/k8s_patch.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "base/names.h"
#include "io/json_reader.h"
#include "io/k8s_command.h"
#include "profiles/system_settings.h"

namespace drainsim {

namespace {

// A word of a shell script as written: its span, and its text with the quotes taken off
// (roughly: enough to recognise a program, a flag or a number).
struct Token {
  std::size_t begin = 0, end = 0;
  std::string text;
  bool separator = false;  // ; & | or a newline, which end a simple command
};

std::vector<Token> tokens_of(const std::string& script) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < script.size()) {
    const char c = script[i];
    if (c == ';' || c == '&' || c == '|' || c == '\n') {
      out.push_back({i, i + 1, std::string(1, c), true});
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else {
      Token t{i, i, "", false};
      char quote = 0;
      for (; i < script.size(); ++i) {
        const char d = script[i];
        if (quote != 0) {
          if (d == quote) {
            quote = 0;
          } else {
            t.text += d;
          }
        } else if (d == '\'' || d == '"') {
          quote = d;
        } else if (d == '\\' && i + 1 < script.size()) {
          t.text += script[++i];
        } else if (std::isspace(static_cast<unsigned char>(d)) || d == ';' || d == '&' ||
                   d == '|') {
          break;
        } else {
          t.text += d;
        }
      }
      t.end = i;
      out.push_back(t);
    }
  }
  return out;
}

// The tokens of the script's last simple command (the worker, as the import reads it).
std::vector<Token> last_command(const std::string& script) {
  std::vector<Token> last, current;
  for (const Token& t : tokens_of(script)) {
    if (!t.separator) {
      current.push_back(t);
    } else if (!current.empty()) {
      last = std::exchange(current, {});
    }
  }
  return current.empty() ? last : current;
}

// Sidekiq's timeout among words, after the program at `program`: the index of the word
// holding the value and the prefix that word keeps ("-t" of "-t25", "--timeout=").
struct FlagAt {
  std::size_t index = 0;
  std::string prefix;
};

std::optional<FlagAt> timeout_flag(const std::vector<std::string>& w, std::size_t program) {
  for (std::size_t i = program + 1; i < w.size(); ++i) {
    const std::string& a = w[i];
    if ((a == "-t" || a == "--timeout") && i + 1 < w.size()) return FlagAt{i + 1, ""};
    if (a.rfind("--timeout=", 0) == 0) return FlagAt{i, "--timeout="};
    if (a.size() > 2 && a.rfind("-t", 0) == 0) return FlagAt{i, "-t"};
  }
  return std::nullopt;
}

std::optional<std::size_t> program_at(const std::vector<std::string>& w) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (base_name(w[i]) == "sidekiq") return i;
  }
  return std::nullopt;
}

// The script with Sidekiq's -t set to `value` in its last command: the number replaced
// where it is written, or " -t N" put after the program.
std::optional<std::string> script_with_timeout(const std::string& script,
                                               const std::string& value) {
  const std::vector<Token> tokens = last_command(script);
  std::vector<std::string> words;
  for (const Token& t : tokens) words.push_back(t.text);
  const std::optional<std::size_t> program = program_at(words);
  if (!program) return std::nullopt;
  std::string out = script;
  if (const std::optional<FlagAt> f = timeout_flag(words, *program)) {
    const Token& t = tokens[f->index];
    return out.replace(t.begin, t.end - t.begin, f->prefix + value);
  }
  return out.insert(tokens[*program].end, " -t " + value);
}

// The exec command with the seconds of its `sleep N` set to `value`, where written: a
// word after `sleep`, or inside a `sh -c` script.
std::optional<std::vector<std::string>> exec_with_sleep(std::vector<std::string> argv,
                                                        const std::string& value) {
  if (argv.size() >= 3 && is_shell(argv[0]) && argv[1] == "-c") {
    const std::vector<Token> tokens = tokens_of(argv[2]);
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
      if (base_name(tokens[i].text) == "sleep" && !tokens[i + 1].separator) {
        argv[2].replace(tokens[i + 1].begin, tokens[i + 1].end - tokens[i + 1].begin, value);
        return argv;
      }
    }
    return std::nullopt;
  }
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (base_name(argv[i]) == "sleep") {
      argv[i + 1] = value;
      return argv;
    }
  }
  return std::nullopt;
}

const ImportedField* field(const K8sImport& import, std::string_view path) {
  for (const ImportedField& f : import.fields) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

// The whole seconds the import wrote as "40s", as the manifest writes them: "40".
std::string seconds_text(const ImportedField* f, std::string_view fallback) {
  if (f == nullptr || !f->value.is_string()) return std::string(fallback);
  std::string v = f->value.get<std::string>();
  if (!v.empty() && v.back() == 's') v.pop_back();
  return v;
}

void emit_strings(YAML::Emitter& e, const std::vector<std::string>& words) {
  e << YAML::BeginSeq;
  for (const std::string& w : words) {
    if (w.find('\n') != std::string::npos) {
      e << YAML::Literal << w;
    } else {
      e << YAML::DoubleQuoted << w;
    }
  }
  e << YAML::EndSeq;
}

class Patcher {
 public:
  Patcher(const K8sImport& import, const std::string& profile, const K8sSettings& settings)
      : import_(import), a_(import.anchors), profile_(profile), settings_(settings) {
    cpath_ = fmt::format("spec.template.spec.containers[{}]", a_.container_index);
    command_ = a_.command;
    args_ = a_.args;
  }

  K8sPatch run(const std::string& patch_file) {
    if (a_.container.empty()) {
      throw InputError(fmt::format(
          "{}: {}.name: the worker's container has no name, which a strategic-merge patch "
          "needs to find it",
          import_.workload, cpath_));
    }
    grace();
    worker_timeout();
    pre_stop();
    out_.kubectl =
        fmt::format("kubectl patch {} {}{} --type strategic --patch-file {}",
                    a_.kind == "StatefulSet" ? "statefulset" : "deployment", a_.name,
                    a_.namespace_name.empty() ? "" : " -n " + a_.namespace_name, patch_file);
    if (a_.helm) {
      out_.notes.push_back(
          "the workload is Helm's (its labels say so): the next `helm upgrade` puts back the "
          "chart's values, so set these in the chart's values too");
    }
    out_.yaml = header() + body() + "\n";
    return std::move(out_);
  }

 private:
  void grace() {
    const std::int64_t s = snippet::seconds_up(settings_.platform_grace);
    const ImportedField* f = field(import_, "platform.termination_grace_period");
    const std::string now = f != nullptr && f->source.empty() ? "not set (Kubernetes' default, 30)"
                                                              : seconds_text(f, "30");
    out_.changes.push_back(
        fmt::format("spec.template.spec.terminationGracePeriodSeconds: {} -> {}", now, s));
    if (settings_.platform_grace % kSecond != 0) {
      out_.notes.push_back(fmt::format("the platform grace {} is rounded up to {}s",
                                       format_duration(settings_.platform_grace), s));
    }
  }

  void worker_timeout() {
    const std::string grace = format_grace(settings_.worker_grace);
    if (profile_.rfind("sidekiq", 0) != 0 || a_.program != "sidekiq") {
      out_.notes.push_back(fmt::format(
          "worker.grace_period {}: {}'s shutdown timeout is not in the manifest (its code or "
          "config holds it; tune's snippet says where): the patch leaves it",
          grace, profile_));
      return;
    }
    if (settings_.worker_grace == kNever) {
      out_.notes.push_back(
          "worker.grace_period forever: Sidekiq's -t has no \"forever\": the patch leaves it");
      return;
    }
    // Sidekiq's cli.rb takes whole seconds and refuses 0.
    const std::int64_t s = std::max<std::int64_t>(1, snippet::seconds_up(settings_.worker_grace));
    if (settings_.worker_grace % kSecond != 0 || settings_.worker_grace < kSecond) {
      out_.notes.push_back(fmt::format(
          "the worker grace {} is -t {}: Sidekiq takes whole seconds, at least 1", grace, s));
    }
    const std::string value = std::to_string(s);
    std::vector<std::string> argv = command_;
    argv.insert(argv.end(), args_.begin(), args_.end());
    const auto put = [&](std::size_t i, std::string word) {
      if (i < command_.size()) {
        command_[i] = std::move(word);
        command_changed_ = true;
      } else {
        args_[i - command_.size()] = std::move(word);
        args_changed_ = true;
      }
    };
    const ImportedField* f = field(import_, "worker.grace_period");
    const std::string now = seconds_text(f, "25");
    for (std::size_t i = 0; i + 2 < argv.size(); ++i) {
      if (is_shell(argv[i]) && argv[i + 1] == "-c") {
        const std::optional<std::string> script = script_with_timeout(argv[i + 2], value);
        if (!script) break;
        put(i + 2, *script);
        out_.changes.push_back(fmt::format("{}.{}: sidekiq -t {} -> -t {} (in its {} -c script)",
                                           cpath_, i + 2 < command_.size() ? "command" : "args",
                                           now, s, base_name(argv[i])));
        return;
      }
    }
    const std::optional<std::size_t> program = program_at(argv);
    if (!program) {
      out_.notes.push_back(fmt::format(
          "worker.grace_period {}: the command's sidekiq could not be found again: the patch "
          "leaves -t",
          grace));
      return;
    }
    if (const std::optional<FlagAt> flag = timeout_flag(argv, *program)) {
      const std::string list = flag->index < command_.size() ? "command" : "args";
      put(flag->index, flag->prefix + value);
      out_.changes.push_back(fmt::format("{}.{}: sidekiq -t {} -> -t {}", cpath_, list, now, s));
      return;
    }
    args_.push_back("-t");
    args_.push_back(value);
    args_changed_ = true;
    out_.changes.push_back(fmt::format(
        "{}.args: sidekiq -t {} added (it ran with Sidekiq's default, {})", cpath_, s, now));
  }

  void pre_stop() {
    if (!settings_.pre_stop) return;
    const PreStop& p = *settings_.pre_stop;
    const std::string path = cpath_ + ".lifecycle.preStop";
    const ImportedField* f = field(import_, "platform.pre_stop");
    const std::string now_kind = f != nullptr ? f->value.value("kind", "none") : "none";
    const std::string kind(name_of(p.kind));
    if (p.kind == PreStop::Kind::kQuietThenWait) {
      out_.notes.push_back(fmt::format(
          "platform.pre_stop quiet_then_wait (timeout {}): its script is tune's snippet, to "
          "paste by hand: the patch leaves the preStop",
          format_duration(p.timeout)));
      return;
    }
    if (p.kind == PreStop::Kind::kNone) {
      if (a_.pre_stop.empty()) return;
      hook_ = Hook::kRemove;
      out_.changes.push_back(fmt::format("{}: removed (it was {})", path, now_kind));
      return;
    }
    const std::int64_t s = snippet::seconds_up(p.duration);
    if (p.duration % kSecond != 0) {
      out_.notes.push_back(
          fmt::format("the preStop's {} is rounded up to {}s", format_duration(p.duration), s));
    }
    const std::string value = std::to_string(s);
    if (now_kind == kind && a_.pre_stop == "sleep") {
      hook_ = Hook::kSleepAction;
      sleep_seconds_ = s;
      out_.changes.push_back(fmt::format("{}.sleep.seconds: -> {}", path, s));
      return;
    }
    if (now_kind == kind && a_.pre_stop == "exec") {
      if (std::optional<std::vector<std::string>> exec = exec_with_sleep(a_.pre_stop_exec, value)) {
        hook_ = Hook::kExec;
        exec_ = std::move(*exec);
        out_.changes.push_back(fmt::format("{}.exec.command: its sleep -> {}", path, s));
        return;
      }
    }
    // A new hook: the sleep, after Sidekiq's quiet when asked (another system has none the
    // import reads back).
    hook_ = a_.pre_stop.empty() || a_.pre_stop == "exec" ? Hook::kExec : Hook::kReplace;
    if (p.kind == PreStop::Kind::kQuietThenSleep && a_.program == "sidekiq") {
      exec_ = {"sh", "-c", "kill -TSTP 1 && sleep " + value};
    } else {
      if (p.kind == PreStop::Kind::kQuietThenSleep) {
        out_.notes.push_back(fmt::format(
            "the preStop only sleeps: drainsim knows no quiet command for {} to put before it",
            profile_));
      }
      exec_ = {"sleep", value};
    }
    out_.changes.push_back(fmt::format("{}: {} -> exec `{}`", path,
                                       a_.pre_stop.empty() ? "none" : a_.pre_stop,
                                       fmt::join(exec_, " ")));
  }

  std::string header() const {
    std::string out = "# drainsim tune's recommendation, as a strategic-merge patch of " +
                      import_.workload + "\n";
    for (const std::string& c : out_.changes) out += "#   " + c + "\n";
    for (const std::string& n : out_.notes) out += "# note: " + n + "\n";
    out += "# apply: " + out_.kubectl + "\n";
    return out;
  }

  std::string body() const {
    YAML::Emitter e;
    e << YAML::BeginMap << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "terminationGracePeriodSeconds" << YAML::Value
      << snippet::seconds_up(settings_.platform_grace);
    e << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << a_.container;
    // A list of strings is replaced whole by a strategic merge: each goes as it now is.
    if (command_changed_) {
      e << YAML::Key << "command" << YAML::Value;
      emit_strings(e, command_);
    }
    if (args_changed_) {
      e << YAML::Key << "args" << YAML::Value;
      emit_strings(e, args_);
    }
    if (hook_ != Hook::kLeave) {
      e << YAML::Key << "lifecycle" << YAML::Value << YAML::BeginMap << YAML::Key << "preStop"
        << YAML::Value;
      if (hook_ == Hook::kRemove) {
        e << YAML::Null;
      } else {
        e << YAML::BeginMap;
        // Another handler (httpGet, sleep) would stay beside the exec in a merge.
        if (hook_ == Hook::kReplace) e << YAML::Key << "$patch" << YAML::Value << "replace";
        if (hook_ == Hook::kSleepAction) {
          e << YAML::Key << "sleep" << YAML::Value << YAML::BeginMap << YAML::Key << "seconds"
            << YAML::Value << sleep_seconds_ << YAML::EndMap;
        } else {
          e << YAML::Key << "exec" << YAML::Value << YAML::BeginMap << YAML::Key << "command"
            << YAML::Value;
          emit_strings(e, exec_);
          e << YAML::EndMap;
        }
        e << YAML::EndMap;
      }
      e << YAML::EndMap;
    }
    e << YAML::EndMap << YAML::EndSeq;
    e << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
    return e.c_str();
  }

  enum class Hook { kLeave, kRemove, kSleepAction, kExec, kReplace };

  const K8sImport& import_;
  const K8sAnchors& a_;
  const std::string& profile_;
  const K8sSettings& settings_;
  std::string cpath_;
  std::vector<std::string> command_, args_;
  bool command_changed_ = false, args_changed_ = false;
  Hook hook_ = Hook::kLeave;
  std::int64_t sleep_seconds_ = 0;
  std::vector<std::string> exec_;
  K8sPatch out_;
};

}  // namespace

K8sPatch k8s_patch(const K8sImport& import, const std::string& profile, const K8sSettings& settings,
                   const std::string& patch_file) {
  return Patcher(import, profile, settings).run(patch_file);
}

}  // namespace drainsim
