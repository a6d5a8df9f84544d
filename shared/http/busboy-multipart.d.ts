/**
 * Types of the two busboy modules multipart-parser.ts imports directly (busboy's own typings
 * cover only its entry, which also loads its urlencoded parser).
 */
declare module 'busboy/lib/types/multipart.js' {
  import type { Busboy, Limits } from 'busboy';

  interface ContentType {
    type: string;
    subtype: string;
    params: Record<string, string>;
  }

  interface MultipartConfig {
    headers: Record<string, string>;
    conType: ContentType;
    limits?: Limits;
    highWaterMark?: number;
    fileHwm?: number;
    defCharset?: string;
    defParamCharset?: string;
    preservePath?: boolean;
  }

  const Multipart: {
    new (config: MultipartConfig): Busboy;
    detect(conType: ContentType): boolean;
  };
  export default Multipart;
}

declare module 'busboy/lib/utils.js' {
  const utils: {
    parseContentType(header: string): { type: string; subtype: string; params: Record<string, string> } | undefined;
  };
  export default utils;
}
