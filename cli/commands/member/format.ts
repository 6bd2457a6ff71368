import type { Member } from '../../../core/tenancy/contract.ts';

export const MEMBER_COLUMNS = ['ID', 'E-mail', 'Name', 'Role', 'User ID', 'Since'] as const;

export function fullName(member: Member): string {
  const name = [member.user.first_name, member.user.last_name]
    .filter((p) => p !== null && p !== '')
    .join(' ');
  return name === '' ? '-' : name;
}

export function memberRow(member: Member): string[] {
  return [member.id, member.user.email, fullName(member), member.role, member.user.id, member.created_at];
}
