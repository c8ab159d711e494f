import Foundation

// lineup-bench NAME [options]: see BenchOptions.usage and DESIGN §7.
exit(BenchCommand.main(Array(CommandLine.arguments.dropFirst())))
