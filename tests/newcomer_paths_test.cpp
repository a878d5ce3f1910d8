// What a new user trips over, round 3 (issue 50): each item through the `dlready` binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/text.hpp"
#include "fixture.hpp"

namespace dlready::test {
namespace {

std::set<std::string> ids_of(const std::string& json) {
  std::set<std::string> ids;
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_object() && j.contains("findings"))
    for (const auto& x : j.at("findings")) ids.insert(x.at("id").get<std::string>());
  return ids;
}

// Item 6: the shell's venv has no torch, another has: the doctor used to show ✓ PyTorch and nothing else.
TEST(Newcomer, AnActiveVenvWithoutTorchIsNamed) {
  Fixture f;
  healthy_gpu_machine(f);
  add_torch_venv(f, "/home/alice/venv", TorchSpec{}, false);
  f.write("/home/alice/proj/.venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\n");
  f.write("/home/alice/proj/.venv/bin/python3", "#!/bin/sh\n", 0755);
  f.write("/home/alice/proj/.venv/lib/python3.11/site-packages/pip/__init__.py", "");
  f.env["VIRTUAL_ENV"] = "/home/alice/proj/.venv";
  std::string doctor = f.env_command() + " " + DLREADY_BINARY + " doctor --no-cache --load-root-drivers --root " + f.root;
  auto json = run_command(doctor + " --json 2>/dev/null");
  EXPECT_TRUE(ids_of(json.out).count("active-env-without-torch")) << json.out.substr(0, 800);
  auto text = run_command(doctor + " --no-color 2>&1");
  EXPECT_NE(text.out.find(". /home/alice/venv/bin/activate"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("/home/alice/proj/.venv/bin/python -m pip install 'torch==2.14.*'"), std::string::npos) << text.out;
  // A venv made with --system-site-packages imports its base's packages: not named then.
  f.write("/home/alice/proj/.venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n");
  EXPECT_FALSE(ids_of(run_command(doctor + " --json 2>/dev/null").out).count("active-env-without-torch"));
  // Nor when the active one has torch.
  f.env["VIRTUAL_ENV"] = "/home/alice/venv";
  doctor = f.env_command() + " " + DLREADY_BINARY + " doctor --no-cache --load-root-drivers --root " + f.root;
  EXPECT_FALSE(ids_of(run_command(doctor + " --json 2>/dev/null").out).count("active-env-without-torch"));
}

// Issue 62, item 7: a pyenv user's shell runs the version pyenv chooses; when it has no torch the
// doctor says so (it showed another environment's torch as "✓ PyTorch"), naming what chose it.
// `python -m dlready` from that interpreter says "the Python that ran `python -m dlready`", never
// "(VIRTUAL_ENV)", which nobody set.
TEST(Newcomer, APyenvShellWithoutTorchIsTheUsersPython) {
  Fixture f;
  healthy_gpu_machine(f);
  f.env.erase("VIRTUAL_ENV");  // torch is in /home/alice/venv, which is not activated
  const std::string pyenv = "/home/alice/.pyenv";
  f.write(pyenv + "/shims/python3", "#!/bin/sh\n", 0755);
  for (const char* v : {"3.11.7", "3.10.13"}) {
    f.write(pyenv + "/versions/" + v + "/bin/python3", "#!/bin/sh\n", 0755);
    f.write(pyenv + "/versions/" + v + "/lib/python" + std::string(v).substr(0, 4) + "/site-packages/pip/__init__.py", "");
  }
  f.write(pyenv + "/version", "3.11.7\n");
  f.env["PATH"] = pyenv + "/shims:/usr/bin:/bin";
  auto doctor = [&] { return f.env_command() + " " + DLREADY_BINARY + " doctor --no-cache --load-root-drivers --root " + f.root; };
  auto text = run_command(doctor() + " --no-color 2>&1");
  EXPECT_NE(text.out.find("the Python your shell runs, " + pyenv + "/versions/3.11.7 (pyenv: " + pyenv +
                          "/version), has no torch: import torch fails in this shell"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("python on PATH: " + pyenv + "/shims/python3 -> " + pyenv + "/versions/3.11.7 (pyenv: "),
            std::string::npos) << text.out;
  // PYENV_VERSION outranks the global file; "system" is no pyenv version.
  f.env["PYENV_VERSION"] = "system";
  EXPECT_FALSE(ids_of(run_command(doctor() + " --json 2>/dev/null").out).count("active-env-without-torch"));
  f.env.erase("PYENV_VERSION");
  // python -m dlready from the pyenv interpreter: named as that, not as VIRTUAL_ENV.
  f.env["DLREADY_PARENT_PYTHON"] = pyenv + "/versions/3.11.7/bin/python3";
  auto parent = run_command(doctor() + " --no-color 2>&1");
  EXPECT_NE(parent.out.find("the Python that ran `python -m dlready`, " + pyenv + "/versions/3.11.7, has no torch"),
            std::string::npos) << parent.out;
  EXPECT_EQ(parent.out.find("(VIRTUAL_ENV)"), std::string::npos) << parent.out;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// Item 11: export-model (and quantize) replaced an existing --out silently, where train, capture and
// keygen refuse; the refusal comes first, before anything is loaded or printed.
TEST(Newcomer, ExportModelRefusesAnExistingOutWithoutOverwrite) {
  Fixture f;
  f.write("/model.pt", "someone's model");
  f.write("/run/checkpoint.dlr", "not read: the refusal comes first");
  for (const char* cmd : {"export-model", "quantize"}) {
    auto refused = run_command(std::string(DLREADY_BINARY) + " " + cmd + " " + f.root + "/run/checkpoint.dlr --out " +
                               f.root + "/model.pt 2>&1");
    EXPECT_EQ(refused.status, 2) << refused.out;
    EXPECT_EQ(refused.out.rfind(std::string("dlready ") + cmd + ": --out " + f.root + "/model.pt already exists: replace it "
                                "with --overwrite, or choose another --out", 0), 0u) << "the first line:\n" << refused.out;
    EXPECT_EQ(read_text(f.root + "/model.pt"), "someone's model");
    auto asked = run_command(std::string(DLREADY_BINARY) + " " + cmd + " " + f.root + "/run/checkpoint.dlr --overwrite --out " +
                             f.root + "/model.pt 2>&1");
    EXPECT_EQ(asked.out.find("already exists"), std::string::npos) << asked.out;
  }
  f.mkdir("/dir.pt");
  auto dir = run_command(std::string(DLREADY_BINARY) + " export-model " + f.root + "/run/checkpoint.dlr --overwrite --out " +
                         f.root + "/dir.pt 2>&1");
  EXPECT_EQ(dir.status, 2) << dir.out;
  EXPECT_NE(dir.out.find("exists and is not a regular file"), std::string::npos) << dir.out;
}

}  // namespace
}  // namespace dlready::test

namespace dlready::test {
namespace {

// Item 9: one error style, `dlready help [COMMAND]`, and a --version that says what it is.
TEST(Newcomer, ParseErrorsHelpAndVersionSpeakDlready) {
  const std::string bin = DLREADY_BINARY;
  auto version = run_command(bin + " --version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("dlready 0.", 0), 0u) << version.out;
  EXPECT_NE(version.out.find("(linux-x86_64, "), std::string::npos) << version.out;
  EXPECT_NE(version.out.find("; compatibility tables of 20"), std::string::npos) << version.out;
  auto help = run_command(bin + " help doctor");
  EXPECT_EQ(help.status, 0) << help.out;
  EXPECT_NE(help.out.find("doctor [OPTIONS]"), std::string::npos) << help.out;
  EXPECT_EQ(run_command(bin + " help").status, 0);
  const std::pair<const char*, const char*> errors[] = {
      {" doctor --json --markdown", "dlready doctor: --json excludes --markdown; see dlready doctor --help"},
      {" doctor --fail-on warn", "dlready doctor: --fail-on: warn not in {error,warning}; see dlready doctor --help"},
      {" doctor -j", "dlready doctor: The following argument was not expected: -j; see dlready doctor --help"}};
  for (const auto& [args, line] : errors) {
    auto r = run_command(bin + args + " 2>&1");
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.out, std::string(line) + "\n") << args;
  }
  // CLI11 quotes what was typed: a control character in it never reaches the terminal.
  auto typed = run_command(bin + " doctor \"$(printf 'x\\033[2J')\" 2>&1");
  EXPECT_EQ(typed.status, 2) << typed.out;
  EXPECT_EQ(typed.out.find('\x1b'), std::string::npos) << typed.out;
  EXPECT_NE(typed.out.find("x\\x1b[2J; see dlready doctor --help"), std::string::npos) << typed.out;
}

// Item 9: help wraps at the terminal's width (COLUMNS here, 80 for a pipe): no description line of
// any command runs past it, but for a single word longer than the room (a URL).
TEST(Newcomer, HelpWrapsAtTheTerminalsWidth) {
  auto help = [](const std::string& command, const std::string& env) {
    return command_output("env -u COLUMNS " + env + " " + std::string(DLREADY_BINARY) + " " + command + " --help");
  };
  for (const char* command : {"", "doctor", "train", "setup", "launch", "bench", "capture", "export"})
    for (auto [env, width] : {std::pair<std::string, size_t>{"", 80}, {"COLUMNS=60", 60}}) {
      std::string text = help(command, env);
      EXPECT_NE(text.find("Options:"), std::string::npos) << command << ": " << text;
      for (const auto& line : split(text, '\n')) {
        if (line.rfind("Usage:", 0) == 0 || line.size() <= width) continue;
        std::string tail = line.substr(line.find_first_not_of(' '));
        EXPECT_EQ(tail.find(' '), std::string::npos) << command << " " << env << ": " << line.size() << " > " << width
                                                      << ":\n" << line;
      }
    }
  EXPECT_NE(help("setup", "COLUMNS=70").find("  --python X.Y                Python version X.Y (default: python3 on\n"
                                              "                              PATH)\n"),
            std::string::npos)
      << help("setup", "COLUMNS=70");
}

// Noticed in issue 50: a plan for another machine said "for this machine", and an install asked for
// another machine printed the whole plan before refusing.
TEST(Newcomer, APlanForAnotherMachineSaysSoAndItsInstallIsRefusedFirst) {
  std::string bin = DLREADY_BINARY;
  auto install = run_command("env DLREADY_OFFLINE=1 " + bin + " setup --gpu H100 2>/dev/null");
  EXPECT_EQ(install.status, 2);
  EXPECT_EQ(install.out, "") << "nothing planned or printed before the refusal";
  auto plan = run_command("env DLREADY_OFFLINE=1 " + bin + " setup --gpu H100 --dry-run 2>&1");
  EXPECT_EQ(plan.status, 0) << plan.out;
  EXPECT_NE(plan.out.find("the PyTorch build for the machine given, and why"), std::string::npos) << plan.out;
  auto here = run_command("env DLREADY_OFFLINE=1 " + bin + " setup --dry-run /tmp/dlready-newcomer-env 2>&1");
  EXPECT_NE(here.out.find("the PyTorch build for this machine, and why"), std::string::npos) << here.out;
}

}  // namespace
}  // namespace dlready::test
