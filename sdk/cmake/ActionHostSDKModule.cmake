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

# actionhost_sdk_install_plugin(<target> MANIFEST <manifest.json> [NAME <folder>] [DESTINATION <dir>])
# Installs a plugin module and its manifest as the host expects to find them: one folder per module,
# <DESTINATION>/<NAME>/{lib<target>.so, manifest.json}. DESTINATION is relative to the install prefix,
# lib/actionhost/plugins by default: installed with the same prefix as actionhost, the host finds the
# plugin in its own tree; installed elsewhere, start it with --plugin-dir <prefix>/lib/actionhost/plugins.
# NAME defaults to <target>. MANIFEST is the configured manifest (after configure_file), installed as
# manifest.json.
function(actionhost_sdk_install_plugin target)
  cmake_parse_arguments(ARG "" "MANIFEST;NAME;DESTINATION" "" ${ARGN})
  if(NOT ARG_MANIFEST)
    message(FATAL_ERROR "actionhost_sdk_install_plugin(${target}): MANIFEST <manifest.json> is required")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${target})
  endif()
  if(NOT ARG_DESTINATION)
    # Not CMAKE_INSTALL_LIBDIR: the host looks in lib/actionhost whatever the platform's library dir is.
    set(ARG_DESTINATION lib/actionhost/plugins)
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${ARG_DESTINATION}/${ARG_NAME})
  install(FILES ${ARG_MANIFEST} DESTINATION ${ARG_DESTINATION}/${ARG_NAME} RENAME manifest.json)
endfunction()
