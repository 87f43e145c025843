// JavaScript run in the page's main world over CDP (Runtime.evaluate / Runtime.callFunctionOn).
// Marking follows BrowserGym's frame_mark_elements.js contract:
// bid / browsergym_visibility_ratio / browsergym_set_of_marks attributes, ARIA prefixes that carry
// the bid into the accessibility tree, same-origin frames recursed with the owner's bid as prefix.
#pragma once

#include <string>

namespace actionhost::browser::scripts {

// Expression: a Promise resolving to an array of warning strings. Marks every same-origin frame.
extern const char *const kMarkElements;
// Expression: strips the ARIA prefixes again (bids and other attributes stay).
extern const char *const kUnmarkElements;
// Expression: the bid of the focused element (following shadow roots and frames), "" or null.
extern const char *const kFocusedBid;

// Expression evaluating to the element with bid `bid` (a JSON-quoted string) or throwing
// Error('Could not find element with bid "<bid>"').
std::string find_element_expression(const std::string &bid_json);

// Function declarations for Runtime.callFunctionOn with `this` = the element.
extern const char *const kActionability;  // (needEnabled) -> {ok, reason}
extern const char *const kHitTest;        // (x, y) -> {ok, reason}
extern const char *const kStableBox;      // () -> bool: same box over two animation frames
extern const char *const kFillPrepare;    // (value) -> {mode:'type'|'set'|'error', message}
extern const char *const kSelectOptions;  // (options[]) -> {ok, message}
extern const char *const kFocus;          // () -> undefined
extern const char *const kDescribe;       // () -> {tag, type}

// Expressions drawing / removing the set-of-marks overlay; the draw one is a function taking the
// boxes [{bid,x,y,w,h}].
extern const char *const kDrawSomOverlay;
extern const char *const kRemoveSomOverlay;

}  // namespace actionhost::browser::scripts
