/** a problem with the command line, its input or an answer; its message is all the user sees */
export class CliError extends Error {}
