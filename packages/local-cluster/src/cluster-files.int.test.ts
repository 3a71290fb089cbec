// scripts/up's files hold the cluster's encryption key, admin token and development wallet: its
// DATA_DIR and every file in it are the owner's alone, whatever the umask.

import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminTokenProblem } from '@chainpay/platform'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  clusterFiles,
  ensureClusterSecrets,
  ensureClusterWallet,
  writeDemoMerchant,
} from './cluster-files.js'

const modeOf = (path: string) => statSync(path).mode & 0o777

let root: string
let savedUmask: number
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chainpay-cluster-files-'))
  savedUmask = process.umask()
})
afterEach(() => {
  process.umask(savedUmask)
  rmSync(root, { recursive: true, force: true })
})

describe('the files of scripts/up', () => {
  it('are written 0600 in a DATA_DIR of mode 0700, under a permissive umask', () => {
    process.umask(0o000)
    const dataDir = join(root, 'distributed')
    const secrets = ensureClusterSecrets(dataDir)
    ensureClusterWallet(dataDir)
    writeDemoMerchant(dataDir, {
      merchantId: 'mer_1',
      apiKey: 'ck_1',
      apiSecret: 'cs_1',
      webhookSecret: 'whsec_1',
    })
    expect(modeOf(dataDir)).toBe(0o700)
    for (const name of Object.values(clusterFiles)) expect(modeOf(join(dataDir, name)), name).toBe(0o600)
    expect(adminTokenProblem(secrets.adminToken)).toBeNull()
  })

  it('tighten a DATA_DIR and a secrets file an earlier version left open, keeping the secrets', () => {
    const dataDir = join(root, 'distributed')
    mkdirSync(dataDir)
    const secrets = ensureClusterSecrets(dataDir)
    chmodSync(dataDir, 0o755)
    chmodSync(join(dataDir, clusterFiles.secrets), 0o644)
    expect(ensureClusterSecrets(dataDir)).toEqual(secrets)
    expect(modeOf(dataDir)).toBe(0o700)
    expect(modeOf(join(dataDir, clusterFiles.secrets))).toBe(0o600)
  })
})
