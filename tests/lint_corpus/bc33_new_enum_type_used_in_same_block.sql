-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertype.html (the restriction is on values added by ADD VALUE to an existing type; the labels of a type created by CREATE TYPE ... AS ENUM in the same transaction are usable at once); ALTER TABLE Notes: ADD COLUMN with a constant DEFAULT, no rewrite
-- verified: PG15: the block committed without error; relfilenode of "User" unchanged
-- given: CREATE TABLE "User" ("id" SERIAL NOT NULL, "email" TEXT NOT NULL, CONSTRAINT "User_pkey" PRIMARY KEY ("id"));
BEGIN;
-- CreateEnum
CREATE TYPE "Role" AS ENUM ('USER', 'ADMIN', 'SUPPORT');

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "role" "Role" NOT NULL DEFAULT 'USER';
COMMIT;
