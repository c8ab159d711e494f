import Foundation

// lineup-bench NAME [options]: see BenchOptions.usage and DESIGN §7.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == BenchDaemonProcess.subcommand {
    // A daemon that `postgres-jobs` started as a process of its own.
    exit(BenchDaemonProcess.main(Array(arguments.dropFirst())))
}
exit(BenchCommand.main(arguments))
