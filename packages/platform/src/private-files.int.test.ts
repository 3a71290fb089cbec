import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ensurePrivateDirectory,
  ensurePrivateFile,
  restrictToOwner,
  writePrivateFileAtomically,
} from './private-files.js'

const modeOf = (path: string) => statSync(path).mode & 0o777

let root: string
let savedUmask: number
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chainpay-private-'))
  savedUmask = process.umask()
})
afterEach(() => {
  process.umask(savedUmask)
  rmSync(root, { recursive: true, force: true })
})

// 0o022 is the usual umask, 0o000 a permissive one (containers, some CI runners), 0o077 a strict one
describe.each([0o022, 0o000, 0o077])('under umask %o', (umask) => {
  beforeEach(() => {
    process.umask(umask)
  })

  it('creates a directory, and its missing parents, of mode 0700', () => {
    const path = join(root, 'a', 'data')
    expect(ensurePrivateDirectory(path)).toEqual({ created: true, tightenedFrom: null, leftOpen: null })
    expect(modeOf(path)).toBe(0o700)
  })

  it('writes a file of mode 0600, atomically, and replaces it keeping the mode', () => {
    const path = join(root, 'standalone-secrets.json')
    writePrivateFileAtomically(path, '{"adminToken":"one"}\n')
    expect(modeOf(path)).toBe(0o600)
    writePrivateFileAtomically(path, '{"adminToken":"two"}\n')
    expect(modeOf(path)).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe('{"adminToken":"two"}\n')
    expect(readdirSync(root)).toEqual(['standalone-secrets.json'])
  })

  it('creates an empty file of mode 0600', () => {
    const path = join(root, 'chainpay.sqlite')
    ensurePrivateFile(path)
    expect(modeOf(path)).toBe(0o600)
    expect(statSync(path).size).toBe(0)
  })
})

describe('ensurePrivateDirectory', () => {
  it('tightens a directory of its own that others can read, and says from what', () => {
    const path = join(root, 'data')
    mkdirSync(path)
    chmodSync(path, 0o755)
    expect(ensurePrivateDirectory(path)).toEqual({ created: false, tightenedFrom: 0o755, leftOpen: null })
    expect(modeOf(path)).toBe(0o700)
    expect(ensurePrivateDirectory(path)).toEqual({ created: false, tightenedFrom: null, leftOpen: null })
  })

  it('leaves a private directory as it is, even stricter than 0700', () => {
    const path = join(root, 'data')
    mkdirSync(path)
    chmodSync(path, 0o500)
    expect(ensurePrivateDirectory(path)).toEqual({ created: false, tightenedFrom: null, leftOpen: null })
    expect(modeOf(path)).toBe(0o500)
  })

  it('refuses a path that is a file', () => {
    const path = join(root, 'data')
    writeFileSync(path, '')
    expect(() => ensurePrivateDirectory(path)).toThrow(`${path}: expected a directory`)
  })

  it.runIf(process.getuid?.() !== 0)('reports, without failing, an open directory of another owner', () => {
    // /tmp belongs to root, is open to everyone (1777), and is not this process's to change
    expect(ensurePrivateDirectory('/tmp')).toEqual({ created: false, tightenedFrom: null, leftOpen: 0o777 })
  })
})

describe('a file that already exists', () => {
  it('is set to 0600 by restrictToOwner and by ensurePrivateFile, keeping its content', () => {
    const path = join(root, 'demo-merchant.json')
    writeFileSync(path, 'kept')
    chmodSync(path, 0o644)
    expect(restrictToOwner(path)).toBe(true)
    expect(modeOf(path)).toBe(0o600)
    chmodSync(path, 0o666)
    ensurePrivateFile(path)
    expect(modeOf(path)).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe('kept')
    expect(restrictToOwner(join(root, 'missing'))).toBe(false)
  })

  it('left behind by a crash as a temporary file of the same name, wider than 0600, is replaced', () => {
    const path = join(root, 'dev-wallet.json')
    writeFileSync(`${path}.tmp-${process.pid}`, 'half a file')
    chmodSync(`${path}.tmp-${process.pid}`, 0o666)
    writePrivateFileAtomically(path, 'whole')
    expect(modeOf(path)).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe('whole')
  })
})
