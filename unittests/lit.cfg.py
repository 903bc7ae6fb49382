# lit configuration for vibegemm's GoogleTest unit tests: lit's GoogleTest
# format runs vibegemm-unittests and reports each test on its own, as LLVM's
# unittests do.

import lit.formats

config.name = "VIBEGEMM-UNIT"
config.test_format = lit.formats.GoogleTest(".", "unittests")
# The test binary is the "source" of its tests.
config.test_source_root = config.vibegemm_tools_dir
config.test_exec_root = config.vibegemm_tools_dir
