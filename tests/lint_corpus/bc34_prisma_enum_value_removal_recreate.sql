-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET DATA TYPE with a USING expression that is not a binary-coercible relabel rewrites the table and its indexes); Prisma's migration for removing an enum value recreates the type and converts through text
-- verified: PG15: relfilenode of "User" and "User_pkey" changed at the ALTER COLUMN ... TYPE; the rest succeeded
-- given: CREATE TYPE "Role" AS ENUM ('USER', 'ADMIN', 'SUPPORT');
-- given: CREATE TABLE "User" ("id" SERIAL NOT NULL, "email" TEXT NOT NULL, "role" "Role" NOT NULL DEFAULT 'USER', CONSTRAINT "User_pkey" PRIMARY KEY ("id"));
/*
  Warnings:

  - The values [SUPPORT] on the enum `Role` will be removed. If these variants are still used in the database, this will fail.

*/
-- AlterEnum
BEGIN;
CREATE TYPE "Role_new" AS ENUM ('USER', 'ADMIN');
ALTER TABLE "User" ALTER COLUMN "role" DROP DEFAULT;
ALTER TABLE "User" ALTER COLUMN "role" TYPE "Role_new" USING ("role"::text::"Role_new");
ALTER TYPE "Role" RENAME TO "Role_old";
ALTER TYPE "Role_new" RENAME TO "Role";
DROP TYPE "Role_old";
ALTER TABLE "User" ALTER COLUMN "role" SET DEFAULT 'USER';
COMMIT;
