-- expect: unsafe add-column-not-null-without-default
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN; Notes: "Adding a CHECK or NOT NULL constraint requires scanning the table"); every existing row gets NULL, so the NOT NULL check fails on any non-empty table
-- verified: with one existing row: ERROR column "version" of relation "accounts" contains null values (the NOT NULL is checked by a scan under AccessExclusiveLock)
-- given: create table accounts (id bigint not null, email varchar(255), primary key (id));
alter table if exists accounts add column version int4 not null;
