// run_ipython over HTTP against the real host and a real ipykernel: the cases of OpenHands'
// tests/runtime/test_ipython.py and its Jupyter plugin's output assembly.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include "jupyter_helpers.hpp"
#include "support/temp_dir.hpp"

using namespace actionhost::testing;
using namespace actionhost::testing::jupyter;
using nlohmann::json;

namespace {
std::string content(const json &obs) { return obs.value("content", std::string("<no content: ") + obs.dump() + ">"); }
std::string me() {
    const passwd *pw = getpwuid(getuid());
    return pw ? pw->pw_name : "root";
}
}  // namespace

TEST(JupyterIPython, ExactOutputWithWorkingDirectoryAndInterpreterTrailer) {
    HostProcess host(jupyter_host());
    json obs = ipython(host, "print('Hello, `World`!\\n')");
    EXPECT_EQ(obs["observation"], "run_ipython");
    EXPECT_EQ(obs["message"], "Code executed in IPython cell.");
    EXPECT_EQ(content(obs), "Hello, `World`!" + trailer(host.working_dir()));
    EXPECT_EQ(obs["extras"]["code"], "print('Hello, `World`!\\n')");
    EXPECT_TRUE(obs["extras"]["image_urls"].is_null());
    EXPECT_EQ(obs["success"], true);
}

TEST(JupyterIPython, NoOutputTextAndIncludeExtraFalse) {
    HostProcess host(jupyter_host());
    EXPECT_EQ(content(ipython(host, "x = 1")), "[Code executed successfully with no output]" + trailer(host.working_dir()));
    EXPECT_EQ(content(ipython(host, "y = 2", -1, "", false)), "[Code executed successfully with no output]");
}

TEST(JupyterIPython, StateResultsStreamsAndAnsiRemoval) {
    HostProcess host(jupyter_host());
    ipython(host, "answer = 6 * 7");
    EXPECT_EQ(content(ipython(host, "answer", -1, "", false)), "42");
    // Streams and the result concatenate as the peer joins them: "".join(texts).
    EXPECT_EQ(content(ipython(host, "print('a', flush=True); import sys; sys.stderr.write('b\\n'); sys.stderr.flush(); 'c'", -1, "", false)),
              "a\nb\n'c'");
    EXPECT_EQ(content(ipython(host, "print('\\x1b[31mred\\x1b[0m é €')", -1, "", false)), "red é €");
}

// Our kernels run without ipykernel's 0.5 ms sleep before each execute_reply (kernel_session.cpp), and
// still lose no output that a cell prints right before it ends.
TEST(JupyterIPython, KernelRepliesWithoutTheExecuteSleepAndLosesNoOutput) {
    HostProcess host(jupyter_host());
    EXPECT_EQ(content(ipython(host, "get_ipython().kernel._execute_sleep", -1, "", false)), "0.0");
    for (int i = 0; i < 20; ++i) {
        const std::string n = std::to_string(i);
        EXPECT_EQ(content(ipython(host, "import sys; print('out" + n + "'); sys.stderr.write('err" + n + "\\n'); " + n, -1, "", false)),
                  "out" + n + "\nerr" + n + "\n" + n);
    }
}

TEST(JupyterIPython, ErrorGivesThePlainTraceback) {
    HostProcess host(jupyter_host());
    const std::string c = content(ipython(host, "def f():\n    return 1/0\nf()"));
    EXPECT_NE(c.find("ZeroDivisionError"), std::string::npos) << c;
    EXPECT_NE(c.find("division by zero"), std::string::npos) << c;
    EXPECT_NE(c.find("return 1/0"), std::string::npos) << c;
    EXPECT_EQ(c.find('\x1b'), std::string::npos) << "ANSI codes must be removed: " << c;
    EXPECT_EQ(c.substr(c.size() - trailer(host.working_dir()).size()), trailer(host.working_dir()));
    EXPECT_EQ(content(ipython(host, "'still alive'", -1, "", false)), "'still alive'");
}

TEST(JupyterIPython, ReadMissingFileAndWriteThenReadFromTheKernel) {
    HostProcess host(jupyter_host());
    // `read` and `write` are host core actions, here beside IPython as in the peer's test_ipython.py.
    json r = host.execute({{"action", "read"}, {"args", {{"path", "nonexistent_file.txt"}}}});
    EXPECT_NE(content(r).find("File not found"), std::string::npos) << r.dump();
    json w = host.execute({{"action", "write"}, {"args", {{"path", "hello.sh"}, {"content", "echo 'Hello, World!'"}}}});
    EXPECT_EQ(w["observation"], "write") << w.dump();
    EXPECT_EQ(w["extras"]["path"], host.working_dir() + "/hello.sh");
    EXPECT_EQ(content(ipython(host, "print(repr(open('hello.sh').read()))", -1, "", false)),
              "\"echo 'Hello, World!'\\n\"");
}

TEST(JupyterIPython, KernelRunsAsTheUserInTheWorkingDirectory) {
    HostProcess host(jupyter_host());
    EXPECT_EQ(content(ipython(host, "import os, getpass\nprint(getpass.getuser())\nprint(os.getcwd())", -1, "", false)),
              me() + "\n" + host.working_dir());
}

TEST(JupyterIPython, WorkingDirectoryFollowsTheBashSession) {
    HostProcess host(jupyter_host());
    json b = host.run("mkdir -p sub/deeper && cd sub/deeper");
    ASSERT_EQ(b["extras"]["metadata"]["exit_code"], 0) << b.dump();
    const std::string deeper = host.working_dir() + "/sub/deeper";
    EXPECT_EQ(content(ipython(host, "import os; print(os.getcwd())")), deeper + trailer(deeper));
    host.run("cd ..");
    EXPECT_EQ(content(ipython(host, "print(os.getcwd())", -1, "", false)), host.working_dir() + "/sub");
}

TEST(JupyterIPython, EnvironmentReachesTheKernelAndPersists) {
    HostOptions o;
    o.env["AH_JUPYTER_FROM_HOST"] = "from-host";
    HostProcess host(jupyter_host(o));
    EXPECT_EQ(content(ipython(host, "import os; print(os.environ['AH_JUPYTER_FROM_HOST'])", -1, "", false)), "from-host");
    ipython(host, "os.environ['AH_SET_IN_KERNEL'] = 'set-in-kernel'");
    EXPECT_EQ(content(ipython(host, "!echo $AH_SET_IN_KERNEL", -1, "", false)), "set-in-kernel");
}

TEST(JupyterIPython, ShellMagicListsTheWorkingDirectory) {
    HostProcess host(jupyter_host());
    write_file(host.working_dir() + "/listed_by_bang_ls.txt", "x");
    const std::string c = content(ipython(host, "!ls", -1, "", false));
    EXPECT_NE(c.find("listed_by_bang_ls.txt"), std::string::npos) << c;
}

TEST(JupyterIPython, PipMagicInstallsALocalPackage) {
    HostProcess host(jupyter_host());
    const std::string c = content(ipython(host, "%pip --version", 90, "", false));
    EXPECT_NE(c.find("pip "), std::string::npos) << c;
    // No index here: a tiny package from a local directory, into a target directory.
    const std::string wd = host.working_dir();
    write_file(wd + "/tinypkg/setup.py", "from setuptools import setup\nsetup(name='ahtiny', version='0.1', packages=['ahtiny'])\n");
    write_file(wd + "/tinypkg/ahtiny/__init__.py", "VALUE = 7\n");
    const std::string inst = content(ipython(
        host, "%pip install --no-index --no-build-isolation --target " + wd + "/site " + wd + "/tinypkg", 110, "", false));
    EXPECT_NE(inst.find("Successfully installed ahtiny-0.1"), std::string::npos) << inst;
    EXPECT_EQ(content(ipython(host, "import sys; sys.path.insert(0, '" + wd + "/site')\nimport ahtiny; ahtiny.VALUE", -1, "", false)), "7");
}

TEST(JupyterIPython, InputAnswersWithAClearErrorInsteadOfHanging) {
    HostProcess host(jupyter_host());
    const std::string c = content(ipython(host, "name = input('name? ')", 30, "", false));
    EXPECT_NE(c.find("StdinNotImplementedError"), std::string::npos) << c;
    EXPECT_NE(c.find("raw_input was called, but this frontend does not support input requests."), std::string::npos) << c;
    EXPECT_EQ(content(ipython(host, "1 + 1", -1, "", false)), "2");
}

TEST(JupyterIPython, MatplotlibFigureBecomesAnImageUrl) {
    HostProcess host(jupyter_host());
    json obs = ipython(host,
                       "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.show()",
                       100, "", false);
    ASSERT_TRUE(obs["extras"]["image_urls"].is_array()) << obs.dump().substr(0, 2000);
    ASSERT_EQ(obs["extras"]["image_urls"].size(), 1u);
    const std::string url = obs["extras"]["image_urls"][0];
    EXPECT_EQ(url.rfind("data:image/png;base64,iVBORw0KGgo", 0), 0u) << url.substr(0, 80);
    EXPECT_GT(url.size(), 1000u);
    // The figure's text/plain is the cell's text, as the peer reports it.
    EXPECT_NE(content(obs).find("<Figure size"), std::string::npos) << content(obs);
}

TEST(JupyterIPython, NamedSessionsHaveTheirOwnKernels) {
    HostProcess host(jupyter_host());
    ipython(host, "v = 'in-a'", -1, "a");
    const std::string b = content(ipython(host, "v", -1, "b", false));
    EXPECT_NE(b.find("NameError"), std::string::npos) << b;
    EXPECT_EQ(content(ipython(host, "v", -1, "a", false)), "'in-a'");
}
