// A header of the test repository the policy's candidates may include.
#pragma once
#define FOO_BLOCK 256
