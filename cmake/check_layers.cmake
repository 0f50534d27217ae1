cmake_minimum_required(VERSION 3.24)
# The layers of docs/architecture.md, checked over every #include "..." under src/ and cuda/:
#   cmake -DROOT=<source folder> -P cmake/check_layers.cmake
# Prints FILE:LINE: the forbidden edge for each include that goes up or sideways, and fails.

# Each layer: name : the files it holds (a regex on the path from ROOT; the first layer that
# matches holds the file) : the layers it may include besides itself. Lowest first.
set(layers
  # Headers that host and device code share: plain C++, no CUDA runtime.
  "shared:^cuda/host_device/:"
  "model:^src/model/:shared"
  "render:^src/render/:shared model"
  "io:^src/io/:shared model render"
  "cli:^src/cli/:shared model render io"
  "counters:^src/counters/:model"
  # The experiments lab (mp_experiments): its kernels, timed and predicted by the model.
  "lab:^cuda/lab/:shared cuda model render io"
  # The render kernel and its host wrapper (mp_cuda): CUDA runtime, nothing of the host library.
  "cuda:^cuda/:shared"
  "gl:^src/gl/:shared cuda model render io"
  # What every front end shares above the kernels, the counters and the host library
  # (mp_session): the device, the frame's report, the measuring, the counters' feed.
  "session:^src/session/:shared cuda model render io cli counters"
  # The front ends: the commands and the window, side by side over the session.
  "commands:^src/commands/:shared cuda lab model render io cli counters gl session"
  "app:^src/app/:shared cuda lab model render io cli counters gl session"
  "main:^src/main\\.cpp$:shared cuda lab model render io cli counters gl session commands app")
# Where a quoted include is looked for after the including file's own folder (the targets'
# include directories).
set(include_roots src cuda cuda/host_device)

if(NOT ROOT)
  message(FATAL_ERROR "check_layers: give the source folder, -DROOT=<folder>")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

function(layer_of path out)
  foreach(entry IN LISTS layers)
    string(REPLACE ":" ";" fields "${entry}")
    list(GET fields 0 name)
    list(GET fields 1 regex)
    if(path MATCHES "${regex}")
      set(${out} "${name}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

function(allowed_of layer out)
  foreach(entry IN LISTS layers)
    string(REPLACE ":" ";" fields "${entry}")
    list(GET fields 0 name)
    if(name STREQUAL layer)
      list(LENGTH fields n)
      set(may "")
      if(n GREATER 2)
        list(GET fields 2 may)
        string(REPLACE " " ";" may "${may}")
      endif()
      set(${out} "${may}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

file(GLOB_RECURSE sources RELATIVE "${ROOT}" "${ROOT}/src/*" "${ROOT}/cuda/*")
list(FILTER sources INCLUDE REGEX "\\.(h|cuh|cpp|cu)$")
list(SORT sources)
set(errors "")
set(unplaced "")
foreach(file IN LISTS sources)
  layer_of("${file}" from)
  if(from STREQUAL "")
    list(APPEND unplaced "${file}")
    continue()
  endif()
  allowed_of("${from}" may)
  get_filename_component(dir "${file}" DIRECTORY)
  file(READ "${ROOT}/${file}" text)
  # One list entry per line: characters that CMake's lists treat specially are blanked first.
  string(REGEX REPLACE "[;\\[\\]\\\\]" "_" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    set(target "")
    foreach(base IN ITEMS "${dir}" ${include_roots})
      if(EXISTS "${ROOT}/${base}/${name}")
        file(RELATIVE_PATH target "${ROOT}" "${ROOT}/${base}/${name}")
        break()
      endif()
    endforeach()
    if(target STREQUAL "")
      continue()  # generated (version.h) or outside our folders
    endif()
    layer_of("${target}" to)
    if(to STREQUAL "" OR to STREQUAL from OR to IN_LIST may)
      continue()
    endif()
    list(APPEND errors "${file}:${number}: ${from} may not include ${to} (${target})")
  endforeach()
endforeach()

foreach(file IN LISTS unplaced)
  list(APPEND errors "${file}: in no layer: add it to check_layers.cmake's list")
endforeach()
list(LENGTH sources checked)
if(errors)
  list(LENGTH errors n)
  string(REPLACE ";" "\n" text "${errors}")
  message("${text}")
  message(FATAL_ERROR "check_layers: ${n} breaks of the layers (docs/architecture.md)")
endif()
message(STATUS "check_layers: ${checked} files, every include within its layers")
