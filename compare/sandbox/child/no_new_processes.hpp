// The sandbox's rule that a submission starts no process of its own. Stopping the sandbox between
// requests (SIGSTOP to its process group) stops its threads, but a child that leaves the group
// (fork, setsid) and runs a program of its own (execve: a second CUDA process) keeps the GPU busy
// while the library or another submission is timed, and nothing in the sandbox's context sees it.
// So, after CUDA's start-up and before the submission's module is loaded, a seccomp filter
// (inherited by every thread, never removable) stops every way of starting one:
//
//   fork, vfork, clone without CLONE_THREAD    trapped: the process ends, its reply says why
//   execve, execveat                           trapped likewise
//   clone3                                     fails with ENOSYS (its flags are in memory, which a
//                                              filter cannot read); glibc then creates threads with
//                                              clone, which the filter reads
//   any other ABI (32-bit or x32 calls)        the process is killed
//
// Threads stay possible (CUDA starts some of its own); the sandbox's thread count refuses the
// submission's. A trapped call never runs: a submission that installs a SIGSYS handler of its own
// only changes how its failed call ends.
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS SECCOMP_RET_KILL  // headers older than Linux 4.14
#endif

namespace kl::sandbox {

namespace no_new_processes_detail {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
#error "the sandbox's process filter knows x86-64 and AArch64"
#endif

// What the SIGSYS handler writes: whole lines made before the filter is installed (a signal
// handler may only write and leave).
inline int g_fd = -1;
inline int g_exit_code = 3;
inline char g_process_line[1024];
inline std::size_t g_process_len = 0;
inline char g_program_line[1024];
inline std::size_t g_program_len = 0;

inline bool is_program(long nr) {
  return nr == SYS_execve
#ifdef SYS_execveat
         || nr == SYS_execveat
#endif
      ;
}

inline void on_sigsys(int, siginfo_t* si, void*) {
  const bool program = is_program(si->si_syscall);
  [[maybe_unused]] const ssize_t w =
      write(g_fd, program ? g_program_line : g_process_line, program ? g_program_len : g_process_len);
  _exit(g_exit_code);
}

inline bool keep(char* dst, std::size_t& len, const std::string& line) {
  if (line.size() >= 1024) return false;
  std::memcpy(dst, line.data(), line.size());
  len = line.size();
  return true;
}

inline sock_filter stmt(unsigned short code, unsigned k) { return BPF_STMT(code, k); }
inline sock_filter jump(unsigned short code, unsigned k, unsigned char jt, unsigned char jf) {
  return BPF_JUMP(code, k, jt, jf);
}

// The filter: the ABI, then the call's number (and clone's flags).
inline std::vector<sock_filter> program() {
  constexpr unsigned kTrap = SECCOMP_RET_TRAP, kAllow = SECCOMP_RET_ALLOW, kKill = SECCOMP_RET_KILL_PROCESS;
  std::vector<sock_filter> f = {
      stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      jump(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0),
      stmt(BPF_RET | BPF_K, kKill),
      stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
  };
#if defined(__x86_64__)
  f.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // __X32_SYSCALL_BIT: the x32 ABI
  f.push_back(stmt(BPF_RET | BPF_K, kKill));
#endif
  // clone: a thread (CLONE_THREAD in its flags, the low word of its first argument) or trapped.
  f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  f.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
  f.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
  f.push_back(stmt(BPF_RET | BPF_K, kAllow));
  f.push_back(stmt(BPF_RET | BPF_K, kTrap));
  auto action = [&](long nr, unsigned ret) {
    f.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 1));
    f.push_back(stmt(BPF_RET | BPF_K, ret));
  };
#ifdef SYS_clone3
  action(SYS_clone3, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
#endif
#ifdef SYS_fork
  action(SYS_fork, kTrap);
#endif
#ifdef SYS_vfork
  action(SYS_vfork, kTrap);
#endif
  action(SYS_execve, kTrap);
#ifdef SYS_execveat
  action(SYS_execveat, kTrap);
#endif
  f.push_back(stmt(BPF_RET | BPF_K, kAllow));
  return f;
}

}  // namespace no_new_processes_detail

// From here on, this process (every thread of it) starts no process and runs no program: such a
// call writes process_line or program_line (each a whole line, under 1 KiB) to fd and ends the
// process with exit_code. Returns "" once installed, else why it could not be.
inline std::string forbid_new_processes(int fd, const std::string& process_line, const std::string& program_line,
                                        int exit_code) {
  namespace d = no_new_processes_detail;
  d::g_fd = fd;
  d::g_exit_code = exit_code;
  if (!d::keep(d::g_process_line, d::g_process_len, process_line) ||
      !d::keep(d::g_program_line, d::g_program_len, program_line))
    return "its messages are too long";
  struct sigaction sa {};
  sa.sa_sigaction = d::on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSYS, &sa, nullptr) != 0) return std::string("sigaction(SIGSYS): ") + std::strerror(errno);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
  std::vector<sock_filter> f = d::program();
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  // Every thread, the ones CUDA has started included (SECCOMP_FILTER_FLAG_TSYNC).
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0)
    return std::string("seccomp: ") + std::strerror(errno);
  return "";
}

}  // namespace kl::sandbox
