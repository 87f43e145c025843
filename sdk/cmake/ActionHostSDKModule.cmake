# actionhost_sdk_module(<target> KIND plugin|runtime)
# Makes <target> (a MODULE library) export exactly one symbol — its entry (docs/design.md, The C ABI):
# hidden visibility for everything, and a linker version script naming only the entry symbol.
function(actionhost_sdk_module target)
  cmake_parse_arguments(ARG "" "KIND" "" ${ARGN})
  if(ARG_KIND STREQUAL "plugin")
    set(symbol actionhost_plugin_entry)
  elseif(ARG_KIND STREQUAL "runtime")
    set(symbol actionhost_runtime_entry)
  else()
    message(FATAL_ERROR "actionhost_sdk_module: KIND must be plugin or runtime")
  endif()
  set(map ${CMAKE_CURRENT_BINARY_DIR}/${target}.exports.map)
  file(WRITE ${map} "{\n  global: ${symbol};\n  local: *;\n};\n")
  set_target_properties(${target} PROPERTIES
    C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON PREFIX "lib")
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
endfunction()
