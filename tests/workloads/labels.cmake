# Read by ctest after the GoogleTest discovery file: label every workloads test "unit" and "workloads".
if(rigsim_workloads_tests_TESTS)
  set_tests_properties(${rigsim_workloads_tests_TESTS} PROPERTIES LABELS "unit;workloads")
endif()
