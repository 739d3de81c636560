#!/usr/bin/env bash
# Bad option values: exit 2 and one line naming the option. These are checked
# before the machine file is read, so they do not depend on configs/.
source "$(dirname "$0")/common.bash"

M=(--machine zen3-epyc-7j13)
expect_error 2 "--fill" run "${M[@]}" --fill 256
expect_error 2 "--fill" run "${M[@]}" --fill -1
expect_error 2 "--fill" run "${M[@]}" --fill 0x100
expect_error 2 "--loops" run "${M[@]}" --loops 0
expect_error 2 "--loops" run "${M[@]}" -l 4294967296
expect_error 2 "--size" run "${M[@]}" --size 1EB
expect_error 2 "--size" run "${M[@]}" --size 0
expect_error 2 "--size" run "${M[@]}" -s 12QB
expect_error 2 "--chunk" run "${M[@]}" --size 1MB --chunk 2MB
expect_error 2 "--chunk" run "${M[@]}" --chunk 2MB
expect_error 2 "--page" run "${M[@]}" --workload mmap --page 64KB
expect_error 2 "--workload" run "${M[@]}" --workload triad
expect_error 2 "--caller" run "${M[@]}" --caller bulk
expect_error 2 "--preempt" run "${M[@]}" --preempt rt
expect_error 2 "--fault" run "${M[@]}" --fault never
expect_error 2 "--function" run "${M[@]}" --function no_such_kernel
expect_error 2 "--seed" run "${M[@]}" --seed -3
expect_error 2 "--format" run "${M[@]}" --format yaml
# a value with a newline in it still gives one line
expect_error 2 "--fill" run "${M[@]}" --fill $'1\n2'
echo "PASS"
