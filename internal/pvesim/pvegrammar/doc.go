// Package pvegrammar is the simulator's own reading of PVE's value grammar:
// lists, disk sizes, tags, URI-encoded ssh keys, the names of config keys
// that hold drives, mount points, NICs and detached volumes, calendar events
// (job schedules, with their next run) and backup retention (prune-backups).
//
// Every function is written from PVE's source and names it. The package must
// not import the provider's grammar (internal/wire): the simulator is the
// witness our tests hold the provider to, so a grammar bug on the provider's
// side must not be mirrored here. A differential test outside the simulator
// (internal/crosscheck) feeds both the same corpus.
//
// Values reach PVE's API handlers as character strings (pve-http-server
// src/PVE/APIServer/AnyEvent.pm decode_urlencoded decodes every value as
// UTF-8), so Perl's regular expressions apply Unicode rules to them: \s is
// Unicode white space, and /i folds letters such as the Kelvin sign.
package pvegrammar
