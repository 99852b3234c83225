/* SPDX-License-Identifier: MIT */
/* What /proc says about a process, for the targets' life cycle. */
#ifndef LBP_PROCFS_H
#define LBP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The line of /proc/PID/stat into buf (cut at len - 1); -1 when gone. */
int proc_read_stat_line(pid_t pid, char *buf, size_t len);

/* State letter and flags from /proc/PID/stat; -1 when gone. */
int proc_read_stat(pid_t pid, char *state, unsigned *flags);

/* /proc/PID/comm, or "?". */
void proc_read_comm(pid_t pid, char *comm, size_t len);

/* /proc/PID/task/TID/comm (the thread's name), or "?". */
void proc_read_thread_comm(pid_t pid, pid_t tid, char *comm, size_t len);

/* Whether any file with "luajit" in its path is mapped: then a missing
 * VM is worth waiting for.  (sysscan classifies by file instead.) */
bool proc_maps_luajit(pid_t pid);

/* The children of pid (every thread's) into out; returns how many. */
int proc_children(pid_t pid, pid_t *out, int max);

/* Every descendant of root (children, theirs, ...), up to max. */
int proc_descendants(pid_t root, pid_t *out, int max);

/* Whether a and b run the same executable. */
bool proc_same_program(pid_t a, pid_t b);

/* 0 when pid is a live user-space process; else -1 with a one-line
 * reason in err (no such process, a kernel thread, a zombie). */
int proc_check_user_process(pid_t pid, char *err, size_t errlen);

/* pid's working directory ("" when unreadable), for relative chunk names. */
void proc_read_cwd(pid_t pid, char *buf, size_t len);

/* Why the kernel refused a process's maps: a missing CAP_SYS_PTRACE, or,
 * when luabpfprof holds it, a security module guarding the process. */
const char *proc_maps_denied_reason(void);

/* pid's parent, or 0 when unknown. */
pid_t proc_parent(pid_t pid);

/* The process pid's program started in: its farthest ancestor running the
 * same executable (an nginx worker's master).  Reports merge a program's
 * processes (model/profile.h, section_by). */
pid_t proc_program_root(pid_t pid);

#endif
