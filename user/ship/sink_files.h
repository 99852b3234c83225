/* SPDX-License-Identifier: MIT */
/* The default continuous-mode sink: one gzip pprof file per profile in a
 * directory, named so that name order is time order
 * (20240131T120000.250Z-SERVICE[-PID].pb.gz), with the oldest files
 * removed to keep at most retain_count files and retain_bytes bytes. */
#ifndef LBP_SINK_FILES_H
#define LBP_SINK_FILES_H

#include <stddef.h>
#include <stdint.h>

struct sink_files;

/* Creates dir if needed; counts files of ours already there toward the
 * limits.  retain_bytes 0 = no size limit. */
struct sink_files *sink_files_open(const char *dir, unsigned retain_count,
				   unsigned long long retain_bytes, char *err, size_t errlen);
void sink_files_close(struct sink_files *s);

/* Writes one profile (atomically: temporary name, then rename) and applies
 * retention.  stem names the profile: "SERVICE" or "SERVICE-PID".
 * Returns 0, or -1 after logging why. */
int sink_files_write(struct sink_files *s, uint64_t start_ns, const char *stem,
		     const void *gz, size_t len);

#endif
