/**
 * pkijs and the asn1js it parses with, loaded together by cms.ts on the first verification: one
 * module, so that the package builds them into one separately loaded file sharing one asn1js
 * (pkijs checks the schemas asn1js returns against its own classes).
 */
export * as asn1js from "asn1js";
export * as pkijs from "pkijs";
