-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: binary coercible); src/include/catalog/pg_cast.dat cidr -> inet castmethod 'b'
-- verified: firewall_rules relfilenode unchanged, no scan
-- given: CREATE TABLE firewall_rules (id bigint PRIMARY KEY, source cidr NOT NULL, note text);
ALTER TABLE firewall_rules ALTER COLUMN source TYPE inet;
