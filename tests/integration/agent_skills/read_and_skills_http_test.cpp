// `read` with impl_source "oh_aci" (served as editor view), the additive `agent_skill` action with its
// per-session state, and the document views — over HTTP against the real host.
#include <gtest/gtest.h>

#include <string>

#include "document_fixtures.hpp"
#include "support/host_process.hpp"

namespace {

using actionhost::testing::HostOptions;
using actionhost::testing::HostProcess;
using actionhost::testing::write_file;
using nlohmann::json;

using namespace actionhost::agent_skills::testing;

class SkillsHttp : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { host_ = new HostProcess(HostOptions{.args = {"--plugins", "agent_skills"}}); }
    static void TearDownTestSuite() {
        delete host_;
        host_ = nullptr;
    }
    static json read(const std::string &path, json view_range = nullptr) {
        json args = {{"path", path}, {"impl_source", "oh_aci"}};
        if (!view_range.is_null()) args["view_range"] = view_range;
        return host_->execute({{"action", "read"}, {"args", args}});
    }
    static json skill(const std::string &name, json args, const std::string &session = "") {
        return host_->execute({{"action", "agent_skill"}, {"args", {{"name", name}, {"args", args}}}}, session);
    }
    static std::string wd() { return host_->working_dir(); }
    static HostProcess *host_;
};
HostProcess *SkillsHttp::host_ = nullptr;

TEST_F(SkillsHttp, ReadOhAciIsAnEditorView) {
    const std::string p = wd() + "/read_me.txt";
    write_file(p, "alpha\nbeta\ngamma\n");
    json obs = read(p, json::array({2, 3}));
    EXPECT_EQ(obs["observation"], "read");
    EXPECT_EQ(obs["message"], "I read the file " + p + ".");
    EXPECT_EQ(obs["content"], "Here's the result of running `cat -n` on " + p + ":\n     2\tbeta\n     3\tgamma\n");
    EXPECT_EQ(obs["extras"], json({{"path", p}, {"impl_source", "oh_aci"}}));
    obs = read(p, json::array({2, 10}));
    EXPECT_EQ(obs["content"], "NOTE: We only show up to 3 since there're only 3 lines in this file.\nHere's the result of running `cat -n` on " + p +
                                  ":\n     2\tbeta\n     3\tgamma\n");
    obs = read(p, json::array({5, 6}));
    EXPECT_EQ(obs["content"], "ERROR:\nInvalid `view_range` parameter: [5, 6]. Its first element `5` should be within the range of lines of the file: [1, 3].");
    obs = read(wd() + "/missing.txt");
    EXPECT_EQ(obs["observation"], "read");
    EXPECT_EQ(obs["content"], "ERROR:\nInvalid `path` parameter: " + wd() + "/missing.txt. The path " + wd() +
                                  "/missing.txt does not exist. Please provide a valid path.");
    std::string bin;
    for (int i = 0; i < 600; ++i) bin += static_cast<char>(i % 3 == 0 ? 0 : (i * 91) % 256);
    write_file(wd() + "/blob.bin", bin);
    obs = read(wd() + "/blob.bin");
    EXPECT_EQ(obs["observation"], "error");
    EXPECT_EQ(obs["content"], "ERROR_BINARY_FILE");
}

TEST_F(SkillsHttp, SkillsKeepStatePerSession) {
    std::string text;
    for (int i = 1; i <= 300; ++i) text += "row " + std::to_string(i) + "\n";
    write_file(wd() + "/rows.txt", text);
    json obs = skill("open_file", {{"path", "rows.txt"}, {"line_number", 1}}, "alpha");
    EXPECT_EQ(obs["observation"], "agent_skill");
    EXPECT_EQ(obs["extras"]["success"], true);
    const std::string c = obs["content"];
    EXPECT_EQ(c.rfind("[File: " + wd() + "/rows.txt (300 lines total)]\n(this is the beginning of the file)\n1|row 1\n", 0), 0u) << c;
    EXPECT_TRUE(c.ends_with("100|row 100\n(200 more lines below)\n[Use `scroll_down` to view the next 100 lines of the file!]")) << c;
    // Session "beta" has no open file; "alpha" scrolls on.
    EXPECT_EQ(skill("scroll_down", json::object(), "beta")["content"], "ERROR: No file open. Use the open_file function first.");
    EXPECT_EQ(skill("scroll_down", json::object(), "beta")["extras"]["success"], false);
    const std::string down = skill("scroll_down", json::object(), "alpha")["content"];
    EXPECT_EQ(down.rfind("[File: " + wd() + "/rows.txt (300 lines total)]\n(100 more lines above)\n101|row 101\n", 0), 0u) << down;
    const std::string found = skill("search_file", {{"search_term", "row 30"}}, "alpha")["content"];  // the open file
    EXPECT_EQ(found, "[Found 2 matches for \"row 30\" in " + wd() + "/rows.txt]\nLine 30: row 30\nLine 300: row 300\n[End of matches for \"row 30\" in " + wd() + "/rows.txt]");
    const std::string ff = skill("find_file", {{"file_name", "rows"}})["content"];
    EXPECT_EQ(ff, "[Found 1 matches for \"rows\" in ./]\n./rows.txt\n[End of matches for \"rows\" in ./]");
    const std::string sd = skill("search_dir", {{"search_term", "row 300"}})["content"];
    EXPECT_EQ(sd, "[Found 1 matches for \"row 300\" in ./]\n./rows.txt (Line 300): row 300\n[End of matches for \"row 300\" in ./]");
}

TEST_F(SkillsHttp, RelativePathsFollowTheShellCwd) {
    std::filesystem::create_directories(wd() + "/deep/er");
    write_file(wd() + "/deep/er/x.txt", "xx\n");
    // The `run` action moves the session's cwd; skills resolve relative paths there (as the kernel does).
    host_->run("cd " + wd() + "/deep", -1, false, "cwdsession");
    const std::string out = skill("find_file", {{"file_name", "x.txt"}}, "cwdsession")["content"];
    EXPECT_EQ(out, "[Found 1 matches for \"x.txt\" in ./]\n./er/x.txt\n[End of matches for \"x.txt\" in ./]");
}

TEST_F(SkillsHttp, BadSkillCallsAreClearErrors) {
    EXPECT_EQ(skill("open_file", {{"path", "nope.txt"}})["content"], "ERROR: File nope.txt not found.");
    EXPECT_EQ(skill("no_such_skill", json::object())["content"].get<std::string>().rfind("ERROR: Unknown skill 'no_such_skill'.", 0), 0u);
    const json obs = host_->execute({{"action", "agent_skill"}, {"args", {{"name", 5}}}});
    EXPECT_EQ(obs["observation"], "error");
}

TEST_F(SkillsHttp, DocumentsViewAsMarkdownAndParse) {
    make_pdf(wd() + "/doc.pdf", {"Quarterly numbers"});
    make_docx(wd() + "/doc.docx", {{"Title", "Plan"}, {"", "Do the thing."}});
    make_pptx(wd() + "/deck.pptx", {{"Welcome", "Agenda items"}});
    make_xlsx(wd() + "/sheet.xlsx", "Sheet1", {{"a", "b"}, {"1", "2"}});
    auto view = [](const std::string &p) {
        return host_->execute({{"action", "edit"}, {"args", {{"command", "view"}, {"path", p}}}})["content"].get<std::string>();
    };
    const std::string head = "Here's the content of the file ";
    EXPECT_EQ(view(wd() + "/doc.pdf"), head + wd() + "/doc.pdf displayed in Markdown format:\nQuarterly numbers\n");
    EXPECT_EQ(view(wd() + "/doc.docx"), head + wd() + "/doc.docx displayed in Markdown format:\n# Plan\n\nDo the thing.\n");
    EXPECT_EQ(view(wd() + "/deck.pptx"), head + wd() + "/deck.pptx displayed in Markdown format:\n<!-- Slide number: 1 -->\n# Welcome\nAgenda items\n");
    EXPECT_EQ(view(wd() + "/sheet.xlsx"), head + wd() + "/sheet.xlsx displayed in Markdown format:\n## Sheet1\n| a | b |\n| --- | --- |\n| 1 | 2 |\n");
    EXPECT_EQ(skill("parse_pdf", {{"file_path", "doc.pdf"}})["content"], "[Reading PDF file from doc.pdf]\n@@ Page 1 @@\nQuarterly numbers");
    EXPECT_EQ(skill("parse_docx", {{"file_path", "doc.docx"}})["content"], "[Reading DOCX file from doc.docx]\n@@ Page 1 @@\nPlan\n\n@@ Page 2 @@\nDo the thing.");
    EXPECT_EQ(skill("parse_pptx", {{"file_path", "deck.pptx"}})["content"], "[Reading PowerPoint file from deck.pptx]\n@@ Slide 1 @@\nWelcome\nAgenda items");
    write_file(wd() + "/paper.tex", "\\section{Results}\nWe \\emph{won}.\n");
    EXPECT_EQ(skill("parse_latex", {{"file_path", "paper.tex"}})["content"], "[Reading LaTex file from paper.tex]\n§ Results\n\nWe won.");
    // Editing a supported binary is refused.
    EXPECT_EQ(host_->execute({{"action", "edit"}, {"args", {{"command", "str_replace"}, {"path", wd() + "/doc.pdf"}, {"old_str", "a"}, {"new_str", "b"}}}})["content"],
              "ERROR:\nInvalid `path` parameter: " + wd() + "/doc.pdf. The path " + wd() +
                  "/doc.pdf points to a binary file (.pdf) and only the `view` command can be used on supported binary files.");
}

}  // namespace
