export * from './commands.js'
