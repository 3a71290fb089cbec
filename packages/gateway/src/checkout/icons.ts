// chainpay's own icon, served by the gateway (the customer's page asks nothing of another origin):
// a white coin ring on the page's accent blue. /pay/assets/icon.svg for browsers that take SVG
// icons, and /favicon.ico, which browsers ask for by themselves, as the same drawing in a 32 x 32
// icon file made here, pixel by pixel, so that no binary file needs shipping.

export const ICON_PATH = '/pay/assets/icon.svg'

const SIZE = 32
const CORNER = 7
const RING_RADIUS = 9
const RING_HALF_WIDTH = 2
/** #0b57d0 as blue, green, red: the icon file's order */
const ACCENT_BGR = [0xd0, 0x57, 0x0b] as const

export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${SIZE} ${SIZE}"><rect width="${SIZE}" height="${SIZE}" rx="${CORNER}" fill="#0b57d0"/><circle cx="16" cy="16" r="${RING_RADIUS}" fill="none" stroke="#ffffff" stroke-width="${RING_HALF_WIDTH * 2}"/></svg>\n`

/** the colour of the pixel at (x, y), from the top left, as [blue, green, red, alpha] */
function pixelAt(x: number, y: number): [number, number, number, number] {
  const cx = x + 0.5
  const cy = y + 0.5
  // outside the rounded corners: transparent
  const dx = Math.max(CORNER - cx, 0, cx - (SIZE - CORNER))
  const dy = Math.max(CORNER - cy, 0, cy - (SIZE - CORNER))
  if (dx * dx + dy * dy > CORNER * CORNER) return [0, 0, 0, 0]
  const distance = Math.hypot(cx - SIZE / 2, cy - SIZE / 2)
  if (Math.abs(distance - RING_RADIUS) <= RING_HALF_WIDTH) return [0xff, 0xff, 0xff, 0xff]
  return [...ACCENT_BGR, 0xff]
}

/** an .ico file of one 32 x 32, 32-bit image (a BMP without its file header, rows bottom-up) */
function faviconIco(): Buffer {
  const pixels = SIZE * SIZE * 4
  const mask = SIZE * 4 // one bit per pixel, rows padded to 4 bytes: all 0, the alpha decides
  const header = Buffer.alloc(6 + 16 + 40)
  header.writeUInt16LE(0, 0)
  header.writeUInt16LE(1, 2) // an icon
  header.writeUInt16LE(1, 4) // one image
  header.writeUInt8(SIZE, 6)
  header.writeUInt8(SIZE, 7)
  header.writeUInt16LE(1, 10) // planes
  header.writeUInt16LE(32, 12) // bits per pixel
  header.writeUInt32LE(40 + pixels + mask, 14)
  header.writeUInt32LE(22, 18) // the image's offset
  header.writeUInt32LE(40, 22) // BITMAPINFOHEADER
  header.writeInt32LE(SIZE, 26)
  header.writeInt32LE(SIZE * 2, 30) // the colours and the mask
  header.writeUInt16LE(1, 34)
  header.writeUInt16LE(32, 36)
  header.writeUInt32LE(pixels + mask, 42)
  const image = Buffer.alloc(pixels + mask)
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      image.set(pixelAt(x, y), ((SIZE - 1 - y) * SIZE + x) * 4)
    }
  }
  return Buffer.concat([header, image])
}

export const FAVICON_ICO: Buffer = faviconIco()
