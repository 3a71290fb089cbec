// Files that hold secrets (the encryption key, the admin token, the development wallet, the demo
// merchant's secrets, the database with every sealed secret) and the directory that holds them are
// the owner's alone: directories 0700, files 0600. The modes are set with chmod after creation, so
// they do not depend on the process's umask (which can only take permissions away from what open
// and mkdir ask for, and may take too many).

import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'

export const PRIVATE_DIRECTORY_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** what ensurePrivateDirectory found and did; modes are permission bits (mode & 0o777) */
export interface PrivateDirectory {
  created: boolean
  /** the directory was open to its group or others and is now 0700: its mode before */
  tightenedFrom: number | null
  /**
   * the directory is open to its group or others and could not be changed, as it belongs to another
   * user (a volume's mount point, for instance): its mode. The files in it are still 0600.
   */
  leftOpen: number | null
}

const modeOf = (path: string) => statSync(path).mode & 0o777

/**
 * Creates `path` (and its parents) as a directory of mode 0700, or, when it exists and its group or
 * others have any permission on it, sets it to 0700 if this process owns it.
 */
export function ensurePrivateDirectory(path: string): PrivateDirectory {
  let stats: ReturnType<typeof statSync> | undefined
  try {
    stats = statSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  if (stats === undefined) {
    mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY_MODE })
    chmodSync(path, PRIVATE_DIRECTORY_MODE)
    return { created: true, tightenedFrom: null, leftOpen: null }
  }
  if (!stats.isDirectory()) throw new Error(`${path}: expected a directory`)
  const mode = Number(stats.mode) & 0o777
  if ((mode & 0o077) === 0) return { created: false, tightenedFrom: null, leftOpen: null }
  if (Number(stats.uid) !== process.getuid?.()) return { created: false, tightenedFrom: null, leftOpen: mode }
  chmodSync(path, PRIVATE_DIRECTORY_MODE)
  return { created: false, tightenedFrom: mode, leftOpen: null }
}

/** sets an existing file to 0600; false when there is no such file */
export function restrictToOwner(path: string): boolean {
  try {
    if (modeOf(path) !== PRIVATE_FILE_MODE) chmodSync(path, PRIVATE_FILE_MODE)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

/** creates an empty file of mode 0600 unless one exists (which is then set to 0600) */
export function ensurePrivateFile(path: string): void {
  let fd: number
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    restrictToOwner(path)
    return
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes `content` to `path` as a file of mode 0600, through a new temporary file, an fsync and a
 * rename: a crash leaves the old file or the new one, never half of one, and the secret is never
 * readable by others, not even for a moment.
 */
export function writePrivateFileAtomically(path: string, content: string): void {
  const temporary = `${path}.tmp-${process.pid}`
  rmSync(temporary, { force: true })
  const fd = openSync(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE)
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
    writeFileSync(fd, content)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, path)
}

/** group and other permission bits: a secret file with any of them set is refused, as ssh refuses a key */
const SHARED_PERMISSIONS = 0o077

/** a secret file that cannot be read, or that other users may read or change; the message names the file, never what it holds */
export class PrivateFileError extends Error {
  override readonly name = 'PrivateFileError'
}

/**
 * The text of a file that holds a secret (a seed, a mnemonic), refused when it is not a regular file
 * or when its group or others have any permission on it: whoever else can read it has the secret. The
 * mode is checked on the opened file, so that it is the one read. Messages start with `flag` (the
 * option that named the file) and end with `otherWay`, another way to give the secret (a pipe, a
 * prompt), when there is one.
 */
export function readOwnerOnlyFile(path: string, flag: string, otherWay?: string): string {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    throw new PrivateFileError(
      `${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    )
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new PrivateFileError(`${flag}: ${path} is not a regular file`)
    const mode = stat.mode & 0o777
    if ((mode & SHARED_PERMISSIONS) !== 0) {
      throw new PrivateFileError(
        `${flag}: ${path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}): run chmod 600 ${path}${otherWay === undefined ? '' : `, or ${otherWay}`}`,
      )
    }
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}
