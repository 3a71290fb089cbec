/** a failure the command reports as one line and exit code 1 (never carries key material) */
export class CommandError extends Error {}
