// Document readers on small real documents made here.
#include <gtest/gtest.h>

#include <string>

#include "document_fixtures.hpp"
#include "documents.hpp"
#include "editor.hpp"
#include "support/temp_dir.hpp"

namespace actionhost::agent_skills {
namespace {

using actionhost::testing::TempDir;
using actionhost::testing::write_file;
using namespace actionhost::agent_skills::testing;

TEST(Documents, Pdf) {
    TempDir d("ah-docs");
    make_pdf(d / "two.pdf", {"Hello PDF page one", "Second page text"});
    EXPECT_EQ(parse_pdf(d / "two.pdf"), "[Reading PDF file from " + (d / "two.pdf") + "]\n@@ Page 1 @@\nHello PDF page one\n\n@@ Page 2 @@\nSecond page text\n");
    EXPECT_EQ(pdf_markdown(d / "two.pdf"), "Hello PDF page one\n\nSecond page text");
    write_file(d / "bad.pdf", "not a pdf");
    EXPECT_THROW(pdf_markdown(d / "bad.pdf"), std::runtime_error);
}

TEST(Documents, Docx) {
    TempDir d("ah-docs");
    make_docx(d / "a.docx", {{"Heading1", "Report"}, {"", "First paragraph."}, {"", "Second &amp; last."}}, {{"k", "v"}, {"x", "1"}});
    EXPECT_EQ(parse_docx(d / "a.docx"),
              "[Reading DOCX file from " + (d / "a.docx") + "]\n@@ Page 1 @@\nReport\n\n@@ Page 2 @@\nFirst paragraph.\n\n@@ Page 3 @@\nSecond & last.\n\n\n");
    EXPECT_EQ(docx_markdown(d / "a.docx"), "# Report\n\nFirst paragraph.\n\nSecond & last.\n\n| k | v |\n| --- | --- |\n| x | 1 |");
}

TEST(Documents, Pptx) {
    TempDir d("ah-docs");
    make_pptx(d / "s.pptx", {{"Intro", "Hello slides"}, {"Next", "More text"}});
    EXPECT_EQ(parse_pptx(d / "s.pptx"),
              "[Reading PowerPoint file from " + (d / "s.pptx") + "]\n@@ Slide 1 @@\nIntro\nHello slides\n@@ Slide 2 @@\nNext\nMore text\n");
    EXPECT_EQ(pptx_markdown(d / "s.pptx"),
              "<!-- Slide number: 1 -->\n# Intro\nHello slides\n\n\n<!-- Slide number: 2 -->\n# Next\nMore text");
    write_file(d / "broken.pptx", "zzz");
    EXPECT_EQ(parse_pptx(d / "broken.pptx").rfind("[Reading PowerPoint file from " + (d / "broken.pptx") + "]\nError reading PowerPoint file: ", 0), 0u);
}

TEST(Documents, Xlsx) {
    TempDir d("ah-docs");
    make_xlsx(d / "t.xlsx", "Data", {{"name", "qty"}, {"apple", "3"}, {"pear", ""}});
    EXPECT_EQ(xlsx_markdown(d / "t.xlsx"), "## Data\n| name | qty |\n| --- | --- |\n| apple | 3 |\n| pear | NaN |");
}

TEST(Documents, Latex) {
    TempDir d("ah-docs");
    write_file(d / "p.tex",
               "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n\\section{Intro}\nSome \\textbf{bold} text % a comment\n"
               "\\begin{itemize}\n\\item one\n\\item two\n\\end{itemize}\n\\end{document}\n");
    const std::string out = parse_latex(d / "p.tex");
    EXPECT_EQ(out.rfind("[Reading LaTex file from " + (d / "p.tex") + "]\n", 0), 0u);
    EXPECT_NE(out.find("§ Intro"), std::string::npos) << out;
    EXPECT_NE(out.find("Some bold text"), std::string::npos) << out;
    EXPECT_NE(out.find("  * one"), std::string::npos) << out;
    EXPECT_EQ(out.find("comment"), std::string::npos);
    EXPECT_EQ(out.find("\\"), std::string::npos);
}

TEST(Documents, EditorViewShowsMarkdown) {
    TempDir d("ah-docs");
    make_docx(d / "a.docx", {{"", "Body text"}});
    Editor e(d.path(), editor_path_policy(""));
    EditorRequest r;
    r.command = "view";
    r.path = d / "a.docx";
    EXPECT_EQ(e.run(r).output, "Here's the content of the file " + (d / "a.docx") + " displayed in Markdown format:\nBody text\n");
    write_file(d / "b.xlsx", "not a zip");
    r.path = d / "b.xlsx";
    EXPECT_EQ(e.run(r).error.rfind("Error in converting file to Markdown: ", 0), 0u);
}

}  // namespace
}  // namespace actionhost::agent_skills
