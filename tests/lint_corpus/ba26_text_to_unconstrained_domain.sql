-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); tablecmds.c ATColumnChangeRequiresRewrite: a CoerceToDomain to a domain without constraints is stripped (DomainHasConstraints false), leaving the binary-coercible Var
-- verified: subscribers relfilenode unchanged, no scan
-- given: CREATE DOMAIN email_address AS text;
-- given: CREATE TABLE subscribers (id bigint PRIMARY KEY, email text NOT NULL);
ALTER TABLE subscribers ALTER COLUMN email TYPE email_address;
