import { describe, expect, it } from 'vitest';
import { createApprovalSigner } from '../../src/scripts/approval-signature.js';
import { hashSource } from '../../src/contracts/script-hashes.js';

const key = Buffer.alloc(32, 1);
const other = Buffer.alloc(32, 2);
const source = 'def main():\n    return 1\n';

function approvedBy(signer = createApprovalSigner([key])) {
  const claim = {
    name: 'a.star',
    approved_hash: hashSource(source),
    approved_by: 'admin',
    approved_at: '2026-11-28T10:00:00.000Z',
  };
  return { ...claim, source, hash: claim.approved_hash, approval_sig: signer.sign(claim) };
}

describe('approval signatures', () => {
  it('verifies what it signed', () => {
    expect(createApprovalSigner([key]).check(approvedBy())).toBeNull();
  });

  it('names each field a forger changed', () => {
    const signer = createApprovalSigner([key]);
    const good = approvedBy();
    expect(signer.check({ ...good, name: 'b.star' })).toBe('bad_signature');
    expect(signer.check({ ...good, approved_by: 'mallory' })).toBe('bad_signature');
    expect(signer.check({ ...good, approved_at: '2026-11-28T10:00:01.000Z' })).toBe(
      'bad_signature',
    );
    expect(signer.check({ ...good, source: `${source}# evil\n` })).toBe('source_hash');
    const evil = 'def main():\n    return 2\n';
    expect(signer.check({ ...good, source: evil, hash: hashSource(evil) })).toBe('approved_hash');
    expect(
      signer.check({
        ...good,
        source: evil,
        hash: hashSource(evil),
        approved_hash: hashSource(evil),
      }),
    ).toBe('bad_signature');
    const { approval_sig: _, ...unsigned } = good;
    expect(signer.check(unsigned)).toBe('missing_signature');
    expect(signer.check({ ...good, approval_sig: 'AAAA' })).toBe('bad_signature');
    expect(signer.check({ ...good, approved_by: undefined })).toBe('incomplete');
  });

  it('refuses another key, and accepts a rotation key beside the current one', () => {
    const byOther = approvedBy(createApprovalSigner([other]));
    expect(createApprovalSigner([key]).check(byOther)).toBe('bad_signature');
    expect(createApprovalSigner([key, other]).check(byOther)).toBeNull();
  });

  it('cannot be fooled by a separator inside a field', () => {
    const signer = createApprovalSigner([key]);
    const a = { name: 'a', approved_hash: 'h', approved_by: 'x","y', approved_at: 't' };
    const b = { name: 'a', approved_hash: 'h', approved_by: 'x', approved_at: 'y","t' };
    expect(signer.sign(a)).not.toBe(signer.sign(b));
  });
});
