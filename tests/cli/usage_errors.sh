#!/usr/bin/env bash
# Unknown commands and options: exit 2 and one line "clearsim: ..." naming them.
source "$(dirname "$0")/common.bash"

expect_error 2 "--bogus" --bogus
expect_error 2 "frobnicate" frobnicate
expect_error 2 "--bogus" run --machine zen3-epyc-7j13 --bogus
expect_error 2 "--bogus" run --bogus=1 --machine zen3-epyc-7j13
expect_error 2 "-Z" run -Z --machine zen3-epyc-7j13
expect_error 2 "--size" run --machine zen3-epyc-7j13 --size
expect_error 2 "stray" run --machine zen3-epyc-7j13 stray
expect_error 2 "--exact" run --machine zen3-epyc-7j13 --exact=yes
expect_error 2 "--format" functions --format xml
expect_error 2 "--format" machines --format csv
expect_error 2 "--size" functions --size 1MB
expect_error 2 "nosuch" help nosuch
expect_error 2 "--machine is required; see 'clearsim machines'" run --size 1MB
echo "PASS"
