# cmake -DREADME=README.md -DFILES="a.cpp;b.cpp" -P readme_quotes.cmake
# Fails when README.md does not quote each file whole: the README's examples are the files the
# suite builds and runs, so they must not drift apart.
file(READ ${README} readme)
foreach(f IN LISTS FILES)
  file(READ ${f} text)
  string(STRIP "${text}" text)
  string(FIND "${readme}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md does not quote ${f} as it is: copy the file into README.md again")
  endif()
endforeach()
message(STATUS "README.md quotes every example as it is")
