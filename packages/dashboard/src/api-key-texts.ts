// The texts of the API keys page (docs/dashboard.md, "API keys"), English and German.

import type { DashboardLanguage } from './dashboard-texts.js'

export const apiKeyTexts = {
  en: {
    apiKeys: 'API keys',
    keysTable: 'The merchant’s API keys',
    key: 'Key',
    secret: 'Secret',
    expiresAt: 'Works until',
    revokedAt: 'Revoked',
    noKeys: 'No API keys.',
    create: 'Create a key',
    roll: 'Roll',
    overlapHours: 'Old key works on for (hours)',
    revoke: 'Revoke',
    shownOnce:
      'Copy the secret now: it is shown this once. chainpay keeps it sealed and shows it nowhere again.',
    rolled: (old: string, until: string) => `${old} works until ${until}; move the shop to the new key.`,
    refused: (text: string) => `Not done: ${text}`,
  },
  de: {
    apiKeys: 'API-Schlüssel',
    keysTable: 'Die API-Schlüssel des Händlers',
    key: 'Schlüssel',
    secret: 'Geheimnis',
    expiresAt: 'Gültig bis',
    revokedAt: 'Widerrufen',
    noKeys: 'Keine API-Schlüssel.',
    create: 'Schlüssel anlegen',
    roll: 'Erneuern',
    overlapHours: 'Alter Schlüssel gilt noch (Stunden)',
    revoke: 'Widerrufen',
    shownOnce:
      'Kopieren Sie das Geheimnis jetzt: Es wird nur dieses eine Mal gezeigt. chainpay bewahrt es versiegelt auf und zeigt es nie wieder.',
    rolled: (old: string, until: string) =>
      `${old} gilt bis ${until}; stellen Sie den Shop auf den neuen Schlüssel um.`,
    refused: (text: string) => `Nicht ausgeführt: ${text}`,
  },
} satisfies Record<DashboardLanguage, unknown>

export type ApiKeyTexts = (typeof apiKeyTexts)['en']
