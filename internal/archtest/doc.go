// Package archtest holds the rules of the module's house, checked on the real
// import graph (`go list`): the import direction docs/architecture.md
// states (a run's path is study → plan → runner → agent, sandbox, tracker,
// verifiers → results → report; defenses and models plug in through
// interfaces their consumer owns), the folders the root may hold, and a
// doc comment on every package.
package archtest
