// A vitest reporter for scripts/test: when a worker took up each test file (before its imports,
// which include the wait for the test servers) and when the file ended, with its vitest project,
// written to .cache/vitest-file-times.json. The JSON reporter's times start after
// a file's imports, so they leave out what a file spends before its first hook.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

export default class FileTimesReporter {
  onInit(vitest) {
    this.root = vitest.config.root
    this.files = new Map()
  }

  onTestModuleQueued(testModule) {
    this.files.set(testModule.moduleId, {
      project: testModule.project.name,
      file: relative(this.root, testModule.moduleId),
      startedAt: Date.now(),
    })
  }

  onTestModuleEnd(testModule) {
    const file = this.files.get(testModule.moduleId)
    if (file) file.endedAt = Date.now()
  }

  onTestRunEnd() {
    const now = Date.now()
    const files = [...this.files.values()].map((file) => ({ ...file, endedAt: file.endedAt ?? now }))
    const directory = join(this.root, '.cache')
    mkdirSync(directory, { recursive: true })
    writeFileSync(join(directory, 'vitest-file-times.json'), `${JSON.stringify({ files }, null, 1)}\n`)
  }
}
