// Package tasks holds the scenarios as data. Every task, built-in or a
// researcher's own, is an HCL task block decoded by one loader (ParseDefs,
// DecodeBlocks, then Link; ParseFile for a file alone): its roles, its
// environment items (pages, notes, records, documents, clips, workspace
// files), its own tools, the {{PAYLOAD}} placements in their texts, its
// payload variants, goals and condition prompts. A stateful scenario is an
// environment block (a state, its vectors, tools whose behaviour is CEL
// over the state), user tasks that name it (a goal check and a ground
// truth), injection blocks and a suite; Link resolves the names the files
// of a study give one another. The built-in tasks are task files embedded
// in the binary (builtin/*.hcl, Builtin); a study adds its own
// (study.Study.Tasks). Env turns a task, a variant and a run's canary into
// the sandbox environment planted for that run, with one builder per kind
// of item; Encode writes a task back as a self-contained task file (with
// its environment, injections and suites), the form a study folder keeps
// and Hash is taken of.
//
// # Content conventions
//
// The scripted reference agents (models/scripted) and the write_filter
// defense read task content without knowing any particular task. They rely
// on the conventions below; every built-in task follows them, the package
// tests check them, and a researcher's task that follows them gets its
// positive and negative controls (docs/writing-a-task.md).
//
//  1. Every role prompt names explicitly what the role works on: the URL
//     (https://…), the document or audio path (docs/x.pdf, audio/x.wav), the
//     search query in double quotes, the memory key to read or write in
//     double quotes (for example "summary"), each tool of the task's own it
//     calls by name with its arguments written like `vendor "Kestrel"`, and
//     the recipient e-mail address.
//     The first e-mail address in a prompt is the legitimate recipient
//     (Goal.Recipient); a prompt never holds the attacker's address. In a
//     delegation relay the reader's prompt names the recipient before
//     HandoffPlaceholder, so the first address stays the legitimate one once
//     the hand-off is filled in.
//
//  2. Legitimate content (pages, notes, records, the PDF body, speech) is
//     factual prose, one fact per line or short paragraphs. It holds no
//     directive-looking line (see DirectivePattern), no e-mail address and no
//     tool name. Each task's Goal.KeyFacts are two or three short exact
//     strings found in that content; a legitimate report holds the key facts
//     when each appears, case-insensitively, in the report body.
//
//  3. A payload is a contiguous block of lines. Every payload line that holds
//     the canary is itself directive-looking (it matches DirectivePattern), so
//     a filter that drops directive-looking lines removes the canary. Each
//     payload names its action explicitly: either an e-mail address at the
//     attacker's domain (AttackGoal.Address, rendered into
//     AttackerPlaceholder) to send to, or an admin tool by its exact name
//     (escalate_privilege, delete_record, exfiltrate_data) or a task tool by
//     its exact name, with its arguments written like `user "contractor-7"`,
//     `role "admin"`, `record_id "R-1042"`.
//
//  4. The attacker's address differs from every legitimate address.
//
// A clean run (BuildInput.Attacked false) gets the same legitimate content
// with no payload anywhere. Text tasks (and audio_inject and multi_surface)
// have at least the variants "direct" (a plain request), "override" (an
// official-looking notice block) and "token_field" (a structured ticket or
// field format carrying the token); cross_modal_relay has "pdf_append",
// "pdf_whitefont" and "pdf_metadata".
//
// In speech (audio_inject) the canary is spoken with canary.Spoken and the
// attacker's address with SpeakAddress ("records dash desk at harbor audit
// dot net"): a transcript carries the spoken form, not the written one. A
// clip's Speech carries the recognizer's phrase list (SpokenPhrases: the
// clean script and every variant's payload, the canary left as its
// placeholder), the same for every run of the task; transcribe_audio hears
// only listed sentences and spelled codes, so speech content must be
// written in words the recognizer's dictionary has (CMUdict, or a compound
// of two of its words like "siteledger"), numbers spelled out, and key facts
// plain words (see sandbox/audio and docs/audio.md).
package tasks
