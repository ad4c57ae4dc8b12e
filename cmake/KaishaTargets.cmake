# Where a library's users find its headers ("runtime/core/json.hpp"): the
# source root in the build tree, include/kaisha/internal once installed.
set(KAISHA_HEADER_ROOT $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/kaisha/internal>)

# kaisha_unity(TARGET)
# With KAISHA_UNITY_LIBRARIES a library's (or the kaisha command's) files are
# compiled in batches of eight: each batch parses the heavy headers (nlohmann
# json, msgpack, CAF, httplib) once, which is most of a clean build's time on
# 2 cores. Names at file scope in an anonymous namespace must then be unique
# in the target; a file that cannot be batched sets SKIP_UNITY_BUILD_INCLUSION.
function(kaisha_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${KAISHA_UNITY_LIBRARIES} UNITY_BUILD_BATCH_SIZE 8)
endfunction()

# kaisha_library(NAME DIR <folder>... [DEPS ...])
# A static library built from every .cpp directly inside the folders. Its
# headers are found from the source root in the build tree and from
# include/kaisha/internal once installed (cmake/KaishaInstall.cmake installs
# every library listed in the global property KAISHA_LIBRARIES).
function(kaisha_library name)
  cmake_parse_arguments(K "" "" "DIR;DEPS" ${ARGN})
  set(_srcs "")
  foreach(_dir IN LISTS K_DIR)
    file(GLOB _dir_srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${_dir}/*.cpp")
    list(APPEND _srcs ${_dir_srcs})
  endforeach()
  if(NOT _srcs)  # header-only part (or not written yet)
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${KAISHA_HEADER_ROOT})
    target_compile_definitions(${name} INTERFACE MSGPACK_NO_BOOST)
    target_link_libraries(${name} INTERFACE ${K_DEPS})
    set_property(GLOBAL APPEND PROPERTY KAISHA_LIBRARIES ${name})
    return()
  endif()
  add_library(${name} STATIC ${_srcs})
  kaisha_unity(${name})
  target_include_directories(${name} PUBLIC ${KAISHA_HEADER_ROOT})
  target_compile_definitions(${name} PUBLIC MSGPACK_NO_BOOST)
  target_link_libraries(${name} PUBLIC ${K_DEPS})
  set_property(GLOBAL APPEND PROPERTY KAISHA_LIBRARIES ${name})
endfunction()

# kaisha_test(NAME DIR <folder> [DEPS ...])
# One GoogleTest executable from every *_test.cpp inside <folder>; each TEST is
# its own ctest entry with a timeout so that a hang fails instead of blocking CI.
# With KAISHA_UNITY_TESTS the folder's files are compiled in batches of eight,
# which parses gtest, nlohmann/json and the project's headers once per batch
# instead of once per file; names in a test file's anonymous namespace must
# then be unique in its folder (a file that needs a common name such as a
# fixture's puts its tests in a namespace named after the file).
function(kaisha_test name)
  cmake_parse_arguments(K "" "DIR;TIMEOUT" "DEPS" ${ARGN})
  file(GLOB _srcs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${K_DIR}/*_test.cpp")
  if(NOT _srcs)
    return()
  endif()
  if(NOT K_TIMEOUT)
    set(K_TIMEOUT 120)
  endif()
  add_executable(${name} ${_srcs})
  set_target_properties(${name} PROPERTIES UNITY_BUILD ${KAISHA_UNITY_TESTS} UNITY_BUILD_BATCH_SIZE 8)
  target_link_libraries(${name} PRIVATE ${K_DEPS} GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    KAISHA_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    KAISHA_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${K_TIMEOUT} ENVIRONMENT "KAISHA_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
endfunction()
