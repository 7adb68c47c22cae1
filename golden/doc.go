// Package golden holds no code: its test runs hcl/smoke.hcl with the
// scripted reference agents on the local backend and compares runs.jsonl
// (run-specific values masked) and the report's tables with golden files,
// so that a refactor of how results are read or computed can show that the
// behaviour did not change. Rewrite the files with
//
//	go test ./golden -update
package golden
