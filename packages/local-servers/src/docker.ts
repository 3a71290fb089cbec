// Whether a Docker engine is there for testcontainers: the socket or DOCKER_HOST.

import { existsSync } from 'node:fs'

export function dockerAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.DOCKER_HOST) || existsSync('/var/run/docker.sock')
}
