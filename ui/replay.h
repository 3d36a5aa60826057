/* replay: the interactive view over a recording (--replay FILE). */
#ifndef PFMTOP_REPLAY_H
#define PFMTOP_REPLAY_H

struct options;

/* Show the recording o->convert until the user quits. The exit status: 0,
 * 1 (not a recording, or it holds no snapshot), 2 (no terminal, or the
 * file cannot be opened). */
int replay_run(const struct options *o);

#endif
