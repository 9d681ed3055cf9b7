// kernelbot: profiles a repository's CUDA kernels, searches for faster verified replacements and
// opens pull requests with them. This file parses the command line and maps every error to an
// exit code: 0 done, 1 failed, 2 bad usage or config.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "bot/cli/cli_context.h"
#include "bot/cli_app.h"
#include "bot/failure_report.h"
#include "common/secret_redactor.h"
#include "config/config_error.h"
#include "profiler/device_query.h"
#include "profiler/sandbox/sandbox_process.h"

namespace {

void setup_logging(const kb::bot::GlobalOptions& options) {
  // Logs go to stderr so that stdout carries only tables and --json output.
  auto logger = spdlog::stderr_color_mt("kernelbot");
  logger->set_pattern("%^[%H:%M:%S %l]%$ %v");
  spdlog::set_default_logger(logger);
  if (options.quiet) spdlog::set_level(spdlog::level::warn);
  else if (options.verbosity >= 2) spdlog::set_level(spdlog::level::trace);
  else if (options.verbosity == 1) spdlog::set_level(spdlog::level::debug);
  else spdlog::set_level(spdlog::level::info);
}

// What was written to stdout must reach it: a full disk or an I/O error there fails the command
// (exit 1, the reason on stderr) instead of exiting 0 with the table or JSON lost.
int after_flushing_stdout(int exit_code) {
  std::cout.flush();
  errno = 0;
  const int flushed = std::fflush(stdout);  // always, so that errno says why
  int error = errno;
  if (std::cout && flushed == 0 && std::ferror(stdout) == 0) return exit_code;
  if (error == 0) {
    // The write that failed was an earlier flush (std::endl) whose errno is gone: stdout's output
    // is lost already, so one more byte written straight to it tells the reason (ENOSPC, EIO, EPIPE).
    if (::write(STDOUT_FILENO, "\n", 1) < 0) error = errno;
  }
  std::cerr << "kernelbot: error: cannot write to standard output: "
            << (error != 0 ? std::strerror(error) : "a write failed") << "\n";
  return exit_code == 0 ? 1 : exit_code;
}

int run_command_line(int argc, char** argv);

}  // namespace

extern char** environ;

int main(int argc, char** argv) {
  // A reader that closed the pipe (`kernelbot discover | head -c1`) makes a write fail with EPIPE
  // instead of ending kernelbot silently by SIGPIPE halfway through a command: the command ends its
  // work and after_flushing_stdout reports the lost output as exit 1. Children get SIGPIPE back
  // (exec_child in profiler/sandbox/sandbox_process.cpp, every program kernelbot starts).
  std::signal(SIGPIPE, SIG_IGN);
  return after_flushing_stdout(run_command_line(argc, argv));
}

namespace {

// Only building the CLI runs outside the try below, and a throw there is a bug in kernelbot that
// std::terminate reports well enough.
// NOLINTNEXTLINE(bugprone-exception-escape)
int run_command_line(int argc, char** argv) {
  // Before anything else: children (candidates among them) cannot read this process's memory or
  // environment through /proc, and every secret in the environment is known to the redactor.
  kb::profiler::harden_parent_process();
  kb::register_secrets_from_environment(environ);
  kb::bot::CliContext ctx;
  CLI::App app{"kernelbot: finds faster, verified replacements for a repository's CUDA kernels and opens pull "
               "requests with them.",
               "kernelbot"};
  kb::bot::build_cli(app, ctx);
  app.parse_complete_callback([&] { setup_logging(ctx.options); });

  // With --json, a failure is a JSON object on stdout as well (bot/failure_report.h).
  const bool json = kb::bot::json_requested(argc, argv);
  auto fail = [json](const std::string& kind, const std::string& message, int exit_code,
                     const std::vector<kb::config::ConfigDiagnostic>& diagnostics = {}) {
    if (json) std::cout << kb::bot::failure_json(kind, message, exit_code, diagnostics).dump(2) << std::endl;
    return exit_code;
  };
  try {
    app.parse(argc, argv);
    return ctx.exit_code;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string message = kb::bot::parse_error_message(app, e, std::vector<std::string>(argv + 1, argv + argc));
    std::cerr << "kernelbot: error: " << message << "\nRun with --help for more information.\n";
    return fail("usage", message, 2);
  } catch (const kb::config::ConfigError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.format() << "\n";
    const std::string summary = std::to_string(e.diagnostics().size()) + " error" +
                                (e.diagnostics().size() == 1 ? "" : "s") + " in the config";
    std::cerr << "kernelbot: " << summary << "\n";
    return fail("config", summary, 2, e.diagnostics());
  } catch (const kb::UsageError& e) {
    std::cerr << "kernelbot: error: " << e.what() << "\n";
    return fail("usage", e.what(), 2);
  } catch (const kb::profiler::NoDeviceError& e) {
    std::cerr << "kernelbot: error: " << e.what() << "\n";
    return fail("no_device", e.what(), 1);
  } catch (const std::exception& e) {  // kb::Error and anything unexpected: the work failed
    std::cerr << "kernelbot: error: " << e.what() << "\n";
    return fail("failed", e.what(), 1);
  }
}

}  // namespace
