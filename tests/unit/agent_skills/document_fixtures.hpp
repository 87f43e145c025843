// Small real documents made by the tests themselves: OOXML packages written part by part with
// Poco::Zip, and a hand-assembled PDF with a correct cross-reference table.
#pragma once

#include <Poco/DateTime.h>
#include <Poco/Path.h>
#include <Poco/Zip/Compress.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace actionhost::agent_skills::testing {

using Parts = std::vector<std::pair<std::string, std::string>>;

inline void write_zip(const std::string &path, const Parts &parts) {
    std::ofstream out(path, std::ios::binary);
    Poco::Zip::Compress zip(out, true);
    for (const auto &[name, text] : parts) {
        std::istringstream in(text);
        zip.addFile(in, Poco::DateTime(), Poco::Path(name, Poco::Path::PATH_UNIX));
    }
    zip.close();
}

inline const char *kXmlDecl = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";

// paragraphs: {style or "", text}
inline void make_docx(const std::string &path, const std::vector<std::pair<std::string, std::string>> &paragraphs,
                      const std::vector<std::vector<std::string>> &table = {}) {
    std::string body;
    for (const auto &[style, text] : paragraphs) {
        body += "<w:p>";
        if (!style.empty()) body += "<w:pPr><w:pStyle w:val=\"" + style + "\"/></w:pPr>";
        body += "<w:r><w:t xml:space=\"preserve\">" + text + "</w:t></w:r></w:p>";
    }
    if (!table.empty()) {
        body += "<w:tbl>";
        for (const auto &row : table) {
            body += "<w:tr>";
            for (const auto &cell : row) body += "<w:tc><w:p><w:r><w:t>" + cell + "</w:t></w:r></w:p></w:tc>";
            body += "</w:tr>";
        }
        body += "</w:tbl>";
    }
    write_zip(path, {
        {"[Content_Types].xml", std::string(kXmlDecl) +
             "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
             "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
             "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
             "<Override PartName=\"/word/document.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml\"/>"
             "</Types>"},
        {"_rels/.rels", std::string(kXmlDecl) +
             "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
             "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"word/document.xml\"/>"
             "</Relationships>"},
        {"word/document.xml", std::string(kXmlDecl) +
             "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>" + body +
             "</w:body></w:document>"},
    });
}

// slides: {title, body text}
inline void make_pptx(const std::string &path, const std::vector<std::pair<std::string, std::string>> &slides) {
    Parts parts;
    std::string overrides, ids, rels;
    for (size_t i = 0; i < slides.size(); ++i) {
        const std::string n = std::to_string(i + 1);
        overrides += "<Override PartName=\"/ppt/slides/slide" + n +
                     ".xml\" ContentType=\"application/vnd.openxmlformats-officedocument.presentationml.slide+xml\"/>";
        ids += "<p:sldId id=\"" + std::to_string(256 + i) + "\" r:id=\"rId" + std::to_string(10 + i) + "\"/>";
        rels += "<Relationship Id=\"rId" + std::to_string(10 + i) +
                "\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide\" Target=\"slides/slide" + n + ".xml\"/>";
        auto shape = [](const std::string &ph, const std::string &text) {
            return "<p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"s\"/><p:cNvSpPr/><p:nvPr>" + ph +
                   "</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>" + text +
                   "</a:t></a:r></a:p></p:txBody></p:sp>";
        };
        parts.emplace_back("ppt/slides/slide" + n + ".xml",
                           std::string(kXmlDecl) +
                               "<p:sld xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" "
                               "xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\"><p:cSld><p:spTree>" +
                               shape("<p:ph type=\"title\"/>", slides[i].first) + shape("", slides[i].second) +
                               "</p:spTree></p:cSld></p:sld>");
    }
    parts.emplace_back("[Content_Types].xml",
                       std::string(kXmlDecl) +
                           "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
                           "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
                           "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
                           "<Override PartName=\"/ppt/presentation.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml\"/>" +
                           overrides + "</Types>");
    parts.emplace_back("ppt/presentation.xml",
                       std::string(kXmlDecl) +
                           "<p:presentation xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\" "
                           "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><p:sldIdLst>" +
                           ids + "</p:sldIdLst></p:presentation>");
    parts.emplace_back("ppt/_rels/presentation.xml.rels",
                       std::string(kXmlDecl) + "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">" +
                           rels + "</Relationships>");
    write_zip(path, parts);
}

// One sheet; the first row is the header. Strings go to the shared-strings table, numbers inline.
inline void make_xlsx(const std::string &path, const std::string &sheet_name, const std::vector<std::vector<std::string>> &rows) {
    std::string shared, data;
    int si = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
        data += "<row r=\"" + std::to_string(r + 1) + "\">";
        for (size_t c = 0; c < rows[r].size(); ++c) {
            const std::string ref = std::string(1, static_cast<char>('A' + c)) + std::to_string(r + 1);
            const std::string &v = rows[r][c];
            if (v.empty()) continue;
            const bool number = v.find_first_not_of("0123456789.-") == std::string::npos;
            if (number) {
                data += "<c r=\"" + ref + "\"><v>" + v + "</v></c>";
            } else {
                shared += "<si><t>" + v + "</t></si>";
                data += "<c r=\"" + ref + "\" t=\"s\"><v>" + std::to_string(si++) + "</v></c>";
            }
        }
        data += "</row>";
    }
    write_zip(path, {
        {"[Content_Types].xml", std::string(kXmlDecl) +
             "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
             "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
             "<Default Extension=\"xml\" ContentType=\"application/xml\"/></Types>"},
        {"xl/workbook.xml", std::string(kXmlDecl) +
             "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
             "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets>"
             "<sheet name=\"" + sheet_name + "\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"},
        {"xl/_rels/workbook.xml.rels", std::string(kXmlDecl) +
             "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
             "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
             "</Relationships>"},
        {"xl/sharedStrings.xml", std::string(kXmlDecl) +
             "<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">" + shared + "</sst>"},
        {"xl/worksheets/sheet1.xml", std::string(kXmlDecl) +
             "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>" + data +
             "</sheetData></worksheet>"},
    });
}

// A valid PDF with one page per entry, each showing its text in Helvetica.
inline void make_pdf(const std::string &path, const std::vector<std::string> &pages) {
    std::vector<std::string> objects;  // object i+1
    const size_t n = pages.size();
    std::string kids;
    for (size_t i = 0; i < n; ++i) kids += std::to_string(4 + 2 * i) + " 0 R ";
    objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
    objects.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(n) + " >>");
    objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
    for (size_t i = 0; i < n; ++i) {
        objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents " +
                          std::to_string(5 + 2 * i) + " 0 R >>");
        const std::string stream = "BT /F1 18 Tf 72 700 Td (" + pages[i] + ") Tj ET";
        objects.push_back("<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream + "\nendstream");
    }
    std::string pdf = "%PDF-1.4\n";
    std::vector<size_t> offsets;
    for (size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (size_t off : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
    std::ofstream(path, std::ios::binary) << pdf;
}

}  // namespace actionhost::agent_skills::testing
