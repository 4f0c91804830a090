// Shared bench helpers: tables on stdout, JSON results under bench/results/.
export { printTable } from "./table";
export { writeResult } from "./results";
export { createMinimalGet } from "./minimal-get";
export { bareGet, clientGet, floorGet, timeChunk } from "./sides";
