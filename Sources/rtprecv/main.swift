import Glibc
import RTPRecvCLI

exit(Command.main(Array(CommandLine.arguments.dropFirst())))
